/**
 * The benchmark scenarios, each measured against its baselines in adjacent runs (so drift of
 * a noisy machine hits both sides of a ratio alike). BENCHMARKS.md describes each one.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseTimestamp, formatTimestamp } from '../../src/domain/timestamps';
import { breakDown, readNewestProfile, type ProfileBreakdown } from './cpu-profile';
import { measureLeaseAccuracy, type LeaseAccuracy } from './lease-accuracy';
import { single, startWindow } from './proc-stats';
import { olderTimestamps, type Frame } from './archives';
import type { PlannedRequest } from './load-job';
import { mapClientPlans } from './map-plan';
import type { BenchOptions } from './options';
import { measurePublishToVisible, type PublishVisibleResult } from './publish-visible';
import { log, type Endpoint, type Runner } from './runner';
import { populateCatalog, startRedisWithKeys, type Replica } from './service';
import { captureStatus, INGEST_POLL_S, type Topology } from './topology';
import { coldWindows, firstTouchWindows, hotTiles, hotWindows, tilesPath } from './windows';

export interface ScenarioContext {
  readonly opts: BenchOptions;
  readonly runner: Runner;
  readonly topo: Topology;
  readonly frames: readonly Frame[];
  /** Facts for the report (plan shape, document sizes). */
  readonly settings: Record<string, string | number | boolean>;
}

type Sequences = PlannedRequest[][];

const direct = (against: string, r: Replica, shown: string[]): Endpoint => ({
  against,
  kind: 'service',
  url: r.url,
  shown,
});

export async function statusScenario({ opts, runner, topo }: ScenarioContext): Promise<void> {
  const { node, direct: api, edge } = topo.endpoints;
  const plain: Sequences = [[{ path: '/status.json' }]];
  const cond: Sequences = [
    [{ path: '/status.json', headers: { 'if-none-match': topo.status.etag } }],
  ];
  const load = (sequences: Sequences, status: number) => ({
    sequences,
    expect: [status],
    connections: opts.connections,
  });
  for (const e of [node, api, edge]) await runner.measure('status-200', e, load(plain, 200));
  for (const e of opts.extras ? [node, api, edge] : [node, api]) {
    await runner.measure('status-304', e, load(cond, 304));
  }
}

export async function hotRangeScenario({
  opts,
  runner,
  topo,
  frames,
}: ScenarioContext): Promise<void> {
  const { node, nginxStatic, direct: api, edge } = topo.endpoints;
  const sequences = [hotWindows(frames[0]!, 64)];
  const load = { sequences, expect: [206], connections: opts.connections };
  for (const e of [node, nginxStatic, api, edge]) await runner.measure('hot-range', e, load);
  if (opts.extras) {
    // Latency without queueing: what each hop adds to one request.
    const one = { sequences, expect: [206], connections: 1 };
    for (const e of [node, nginxStatic, api, edge]) {
      await runner.measure('hot-range, 1 connection', e, one);
    }
  }
}

/**
 * The z/x/y route against the same tiles served as files: nginx static from disk and node:http
 * from memory. Run with `hot-range` to compare a hot tile with a hot 16 KiB range.
 */
export async function tileScenario({ opts, runner, topo, frames }: ScenarioContext): Promise<void> {
  const tiles = await hotTiles(frames[0]!, 64);
  if (tiles.length === 0) throw new Error('the newest archive holds no tiles at zoom 5-6');
  for (const tile of tiles) {
    const file = path.join(topo.staticRoot, tile.path);
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
    await fs.writeFile(file, tile.bytes, { mode: 0o644 });
  }
  // nginx workers run unprivileged: every directory on the way must be searchable.
  await chmodTree(path.join(topo.staticRoot, 'tiles'));
  const { node, nginxStatic, direct: api, edge } = topo.endpoints;
  const load = {
    sequences: [tiles.map((t) => ({ path: t.path }))],
    expect: [200],
    connections: opts.connections,
  };
  for (const e of [node, nginxStatic, api, edge]) await runner.measure('tile', e, load);
}

/**
 * The same 64 hot tiles in a colour scheme (`/tiles/{ts}/cividis/{z}/{x}/{y}.png`): the tile
 * route plus the palette rewrite. Its baseline is the plain tiles measured on the same replica
 * just before (warm, adjacent: the `scheme tile` target, within 10 %); the `tile` rows of a
 * run that also has them compare as well.
 */
export async function schemeTileScenario({
  opts,
  runner,
  topo,
  frames,
}: ScenarioContext): Promise<void> {
  const tiles = await hotTiles(frames[0]!, 64);
  if (tiles.length === 0) throw new Error('the newest archive holds no tiles at zoom 5-6');
  const scheme = (p: string) => p.replace(/^(\/tiles\/[0-9]{12})\//, `$1/${BENCH_SCHEME}/`);
  const { direct: api, edge } = topo.endpoints;
  const load = (paths: string[]) => ({
    sequences: [paths.map((path) => ({ path }))],
    expect: [200],
    connections: opts.connections,
  });
  const plain = tiles.map((t) => t.path);
  await runner.measure('scheme-tile', { ...api, against: PLAIN_AGAINST }, load(plain));
  for (const e of [api, edge]) await runner.measure('scheme-tile', e, load(plain.map(scheme)));
}

/** The `against` of the scheme-tile scenario's baseline row. */
export const PLAIN_AGAINST = 'replica (direct), the same tiles plain';

/** The scheme of the scheme-tile scenario (any scheme costs the same rewrite). */
export const BENCH_SCHEME = 'cividis';

async function chmodTree(dir: string): Promise<void> {
  await fs.chmod(dir, 0o755);
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await chmodTree(path.join(dir, entry.name));
  }
}

/** Plans of the virtual map clients (shared by map-client, log-info and scale). */
export async function mapSequences({
  opts,
  frames,
  settings,
}: ScenarioContext): Promise<Sequences> {
  const loop = frames.slice(0, opts.loopFrames);
  const plans = await mapClientPlans({ frames: loop, count: opts.mapClients, maxZoom: 7 });
  const perView = (n: number) => (n / plans.length / loop.length).toFixed(1);
  const tiles = plans.reduce((s, p) => s + p.tileRequests, 0);
  const dirs = plans.reduce((s, p) => s + p.directoryRequests, 0);
  settings.mapPlan =
    `${perView(tiles)} tile ranges and ${perView(dirs)} header/directory reads per view and frame on ` +
    'average; these archives need no leaf directories (the root directory holds every entry)';
  return plans.map((p) => p.requests);
}

export async function mapClientScenario(ctx: ScenarioContext, sequences: Sequences): Promise<void> {
  const { node, nginxStatic, direct: api, edge } = ctx.topo.endpoints;
  const load = { sequences, expect: [206], connections: sequences.length };
  for (const e of ctx.opts.extras ? [node, nginxStatic, api, edge] : [nginxStatic, api, edge]) {
    await ctx.runner.measure('map-client', e, load);
  }
}

/** A replica without a cache: every byte comes from the store. */
async function uncachedReplica(ctx: ScenarioContext, name: string): Promise<Replica> {
  return ctx.topo.replica(name, ctx.topo.redis.url, ctx.frames.length, { RADAR_CACHE_MB: '0' });
}

export async function fullArchiveScenario(ctx: ScenarioContext): Promise<void> {
  const { opts, runner, topo, frames } = ctx;
  const { nodeS3, nginxStatic, direct: api, edge } = topo.endpoints;
  const load = {
    sequences: [frames.map((f) => ({ path: tilesPath(f.timestamp) }))],
    expect: [200],
    connections: opts.archiveConnections,
  };
  await runner.measure('full-archive', nodeS3, load);
  if (opts.extras) await runner.measure('full-archive', nginxStatic, load);
  await runner.measure('full-archive', { ...api, shown: [...api.shown, 's3rver'] }, load);
  if (opts.extras)
    await runner.measure('full-archive', { ...edge, shown: [...edge.shown, 's3rver'] }, load);
  // The archives fit the cache's largest cached window, so the runs above measure the cache;
  // with RADAR_CACHE_MB=0 every byte streams from the store, as cold archives do.
  const uncached = await uncachedReplica(ctx, 'api-nocache');
  await runner.measure(
    'full-archive',
    direct('replica, RADAR_CACHE_MB=0', uncached, ['api-nocache', 'redis', 's3rver']),
    load,
  );
  await topo.stopReplica('api-nocache', uncached);
}

export async function coldRangeScenario(ctx: ScenarioContext): Promise<void> {
  const { opts, runner, topo, frames } = ctx;
  const one = (sequences: Sequences) => ({ sequences, expect: [206], connections: 1 });
  const s3Path = (ts: string) => `/${topo.s3.bucket}/${ts}.pmtiles`;
  await runner.measure('cold-range', topo.endpoints.s3, one([coldWindows(frames, 4000, s3Path)]));

  const windows = one([coldWindows(frames, 4000, tilesPath)]);
  const cold1 = await uncachedReplica(ctx, 'api-cold-1');
  await runner.measure(
    'cold-range',
    direct('replica, RADAR_CACHE_MB=0', cold1, ['api-cold-1', 'redis', 's3rver']),
    windows,
  );

  // With the cache on, a cold read is a block miss: a fresh replica, warmed up on the blocks of
  // the newest frames, then exactly one read per block of the frames it never touched (the
  // publish warmer loads only the newest frames' headers).
  const fresh = await topo.replica('api-fresh', topo.redis.url, frames.length);
  const warm = firstTouchWindows(frames.slice(0, opts.loopFrames));
  const measured = firstTouchWindows(frames.slice(opts.loopFrames));
  await runner.measure(
    'cold-range',
    direct('replica, cache on, block misses', fresh, ['api-fresh', 'redis', 's3rver']),
    {
      ...one([measured]),
      amount: measured.length,
      warmup: { sequences: [warm], amount: warm.length },
    },
  );
  await topo.stopReplica('api-fresh', fresh);

  if (opts.extras) {
    const cold2 = await uncachedReplica(ctx, 'api-cold-2');
    const coldEdge = await topo.edgeOver('nginx-cold', [cold1, cold2]);
    const endpoint: Endpoint = {
      against: 'nginx + 2 replicas, RADAR_CACHE_MB=0',
      kind: 'service',
      url: coldEdge.url,
      shown: ['nginx-cold', 'api-cold-1', 'api-cold-2', 'redis', 's3rver'],
    };
    await runner.measure('cold-range', endpoint, windows);
    await coldEdge.stop();
    runner.unwatch('nginx-cold');
    await topo.stopReplica('api-cold-2', cold2);
  }
  await topo.stopReplica('api-cold-1', cold1);
}

export async function logInfoScenario(ctx: ScenarioContext, sequences: Sequences): Promise<void> {
  const info = await ctx.topo.replica('api-info', ctx.topo.redis.url, ctx.frames.length, {
    LOG_LEVEL: 'info',
  });
  await ctx.runner.measure(
    'map-client',
    direct('replica, LOG_LEVEL=info', info, ['api-info', 'redis']),
    {
      sequences,
      expect: [206],
      connections: sequences.length,
    },
  );
  await ctx.topo.stopReplica('api-info', info);
}

/** CPU of an idle replica (no requests), measured after it settled. */
export interface IdleCpu {
  readonly timestamps: number;
  readonly seconds: number;
  readonly cores: number;
}

export async function scaleScenario(
  ctx: ScenarioContext,
  sequences: Sequences,
): Promise<IdleCpu | undefined> {
  const { opts, runner, topo, frames, settings } = ctx;
  const redis10k = await startRedisWithKeys();
  topo.onStop(() => redis10k.stop());
  runner.watch('redis-10k', redis10k.process.pid!);
  await populateCatalog(
    redis10k.url,
    topo.metas,
    olderTimestamps(frames, opts.scaleTimestamps - frames.length),
  );
  const api10k = await topo.replica('api-10k', redis10k.url, opts.scaleTimestamps);
  // Idle first: nothing but its timers, resyncs and probes. Settled for 30 s: V8's memory
  // reducer keeps collecting the start-up garbage (catalog load, status render) for several
  // seconds, 0.005 cores on top of the steady 0.002 when measured after 5 s
  // (tools/bench/idle-cpu.ts --settle 5 vs --settle 30).
  await new Promise((r) => setTimeout(r, opts.quick ? 1000 : 30_000));
  const idleS = opts.quick ? 5 : 30;
  const idleWindow = startWindow([single('api-10k', api10k.proc.pid)], 1000);
  await new Promise((r) => setTimeout(r, idleS * 1000));
  const idleCores = idleWindow.stop().processes['api-10k']?.cpuCores ?? Number.NaN;
  const idle: IdleCpu = { timestamps: opts.scaleTimestamps, seconds: idleS, cores: idleCores };
  log(`idle replica with ${opts.scaleTimestamps} timestamps: ${idleCores} cores over ${idleS} s`);
  const small = await captureStatus(topo.api1.url);
  const large = await captureStatus(api10k.url);
  settings.statusBytes = `${small.body.length} B with ${frames.length} timestamps, ${large.body.length} B with ${opts.scaleTimestamps}`;
  const smallEnd = direct('replica, 30 timestamps', topo.api1, ['api-1', 'redis']);
  const largeEnd = direct('replica, 10,000 timestamps', api10k, ['api-10k', 'redis-10k']);
  const c = opts.connections;
  const status = (etag?: string): Sequences => [
    [{ path: '/status.json', headers: etag ? { 'if-none-match': etag } : {} }],
  ];
  await runner.measure('scale status-200', smallEnd, {
    sequences: status(),
    expect: [200],
    connections: c,
  });
  await runner.measure('scale status-200', largeEnd, {
    sequences: status(),
    expect: [200],
    connections: c,
  });
  const gzip = (): Sequences => [
    [{ path: '/status.json', headers: { 'accept-encoding': 'gzip' } }],
  ];
  for (const end of [smallEnd, largeEnd]) {
    await runner.measure('scale status-200 gzip', end, {
      sequences: gzip(),
      expect: [200],
      connections: c,
    });
  }
  await runner.measure('scale status-304', smallEnd, {
    sequences: status(small.etag),
    expect: [304],
    connections: c,
  });
  await runner.measure('scale status-304', largeEnd, {
    sequences: status(large.etag),
    expect: [304],
    connections: c,
  });
  if (opts.extras) {
    const load = { sequences, expect: [206], connections: sequences.length };
    await runner.measure('scale map-client', smallEnd, load);
    await runner.measure('scale map-client', largeEnd, load);
  }
  await topo.stopReplica('api-10k', api10k);
  await redis10k.stop();
  runner.unwatch('redis-10k');
  return idle;
}

export async function publishScenario({
  opts,
  topo,
  frames,
}: ScenarioContext): Promise<PublishVisibleResult> {
  // Odd minutes between the published frames: new timestamps that are never `latest`.
  const uploads = frames.slice(0, opts.publishSamples).map((frame) => ({
    timestamp: formatTimestamp(parseTimestamp(frame.timestamp)! - 60_000),
    bytes: frame.bytes,
  }));
  return measurePublishToVisible({
    s3: topo.s3,
    replicas: [
      { name: 'api-1', replica: topo.api1 },
      { name: 'api-2', replica: topo.api2 },
    ],
    uploads,
    pollIntervalS: INGEST_POLL_S,
  });
}

/** CPU of the profiled replica per request, by pipeline part, for status and hot ranges. */
export async function profileScenario(ctx: ScenarioContext): Promise<ProfileBreakdown[]> {
  const { opts, runner, topo, frames } = ctx;
  const loads: Array<[string, Sequences, number]> = [
    ['status-200', [[{ path: '/status.json' }]], 200],
    ['hot-range', [hotWindows(frames[0]!, 64)], 206],
  ];
  const out: ProfileBreakdown[] = [];
  for (const [name, sequences, status] of loads) {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-cpuprof-'));
    const spawnedAt = Date.now();
    const replica = await topo.replica('api-prof', topo.redis.url, frames.length, {}, [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      '--cpu-prof-interval=200',
    ]);
    const run = await runner.measure(
      `profile ${name}`,
      direct('replica with --cpu-prof', replica, ['api-prof', 'redis']),
      { sequences, expect: [status], connections: opts.connections },
    );
    await topo.stopReplica('api-prof', replica);
    const window = run.windowMs!;
    const profile = await readNewestProfile(dir);
    out.push(
      breakDown(profile, name, run.result.responses, {
        fromMs: window.from - spawnedAt,
        toMs: window.to - spawnedAt,
      }),
    );
    await fs.rm(dir, { recursive: true, force: true });
  }
  return out;
}

/** Lease accuracy (see lease-accuracy.ts) on the bench's Redis. */
export async function leaseScenario(ctx: ScenarioContext): Promise<LeaseAccuracy[]> {
  return measureLeaseAccuracy(ctx.topo.redis.url, log);
}
