/**
 * `node tools/build-and-run.mjs tools/bench/typed-scheme-profile.ts [plain|<scheme>]...`: where
 * a replica's CPU goes when it serves the typed archive's hot tiles (the `typed-scheme-tile`
 * scenario's archive and tiles) plain or in a scheme. Per mode: a fresh replica under
 * `node --cpu-prof` on the typed archive's own backend, 3 s of warm-up and 10 s of `wrk -c32`,
 * then its profile's busy CPU (idle excluded) and the share of it spent inside the scheme step
 * (`recolour` of `tiles/tile-schemes.js`: the chunk walk, the palette check, the new buffer and
 * its copy), self and children, and in the garbage collector; and busy CPU per request (µs,
 * over the warm-up's and the run's responses, startup included: compare modes, not absolutes).
 * The scheme step's share is what recolouring adds to a plain tile; with the recoloured tile
 * cache (`tiles/scheme-tile-cache.ts`) a hot scheme tile is rewritten once per replica, so the
 * share falls to about nothing and the µs per request is what to compare.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { formatTimestamp } from '../../src/domain/timestamps';
import { readNewestProfile, type CpuProfile } from './cpu-profile';
import { AUTH_HEADERS, startPublishedBackend, startReplica } from './service';
import { makeTypedArchive } from './typed-scheme-tile';
import { hotTiles } from './windows';
import { runWrk } from './wrk';

/** Busy µs of the profile, the µs whose stack passes through `recolour`, and the GC's µs. */
function recolourShare(profile: CpuProfile): { busyUs: number; recolourUs: number; gcUs: number } {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let busyUs = 0;
  let recolourUs = 0;
  let gcUs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const own = byId.get(id)?.callFrame.functionName;
    if (own === '(idle)') return;
    busyUs += delta;
    if (own === '(garbage collector)') gcUs += delta;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url } = byId.get(at)!.callFrame;
      if (functionName === 'recolour' && url.endsWith('/tiles/tile-schemes.js')) {
        recolourUs += delta;
        return;
      }
    }
  });
  return { busyUs, recolourUs, gcUs };
}

async function main(): Promise<void> {
  const modes = process.argv.slice(2);
  if (modes.length === 0) modes.push('plain', 'cividis');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-typed-profile-'));
  const logDir = path.join(dir, 'logs');
  await fs.mkdir(logDir, { recursive: true });
  const timestamp = formatTimestamp(Math.floor(Date.now() / 120_000) * 120_000);
  const typed = { timestamp, bytes: await makeTypedArchive(dir) };
  const tiles = await hotTiles(typed, 64);
  const stops: Array<() => Promise<void>> = [];
  try {
    const backend = await startPublishedBackend(dir, logDir, [typed], stops);
    for (const [i, mode] of modes.entries()) {
      const profDir = path.join(dir, `profile-${i}`);
      const replica = await startReplica(`api-${i}`, {
        redisUrl: backend.redis.url,
        s3: backend.s3server.s3,
        logDir,
        env: { RADAR_CACHE_MB: '64', RADAR_STALE_AFTER_S: '3600' },
        expectTimestamps: 1,
        nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval=100'],
      });
      const paths = tiles.map((t) =>
        mode === 'plain' ? t.path : t.path.replace(/^(\/tiles\/[0-9]{12})\//, `$1/${mode}/`),
      );
      const job = {
        baseUrl: replica.url,
        connections: 32,
        headers: { ...AUTH_HEADERS },
        sequences: [paths.map((p) => ({ path: p }))],
        expect: [200],
      };
      const warm = await runWrk({ ...job, label: `warm-up ${mode}`, durationS: 3 });
      const run = await runWrk({ ...job, label: mode, durationS: 10 });
      await replica.proc.stop();
      const { busyUs, recolourUs, gcUs } = recolourShare(await readNewestProfile(profDir));
      const perRequest = busyUs / Math.max(1, warm.responses + run.responses);
      process.stdout.write(
        `${mode.padEnd(8)} ${run.rps} req/s, ${run.errors} errors; busy CPU ${(busyUs / 1e6).toFixed(2)} s, ` +
          `${perRequest.toFixed(1)} µs/req, in recolour ${((100 * recolourUs) / busyUs).toFixed(1)} %, ` +
          `in GC ${((100 * gcUs) / busyUs).toFixed(1)} %\n`,
      );
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await fs.rm(dir, { recursive: true, force: true });
  }
}

void main();
