/**
 * The `typed-scheme-tile` scenario: a TYPED archive (snow, rain and hail in the pixels' palette
 * indices) served through the real service, plain z/x/y tiles against the same tiles in every
 * colour scheme. The archive is made by the producer's one-shot command from the repository's
 * real samples (`node dist/bin/mrms.js --file <reflectivity> --type-file <flag> --out <dir>`;
 * the PrecipFlag sample is re-timed onto the reflectivity's 2-minute cycle, as the `mrms`
 * scenario does, since the two samples are of different days). It is published by its own
 * Redis, s3rver and ingest worker (the shared topology's catalog must keep its 30 simulator
 * frames) and served by one replica, `api-typed`, in the bench's production configuration.
 * Each scheme is measured right after a plain run of the same tiles (adjacent pairs, so drift
 * of the shared machine hits both sides of a ratio alike), in {@link TYPED_ROUNDS} rounds
 * (one in a quick run) whose median ratio is the target (`typed-scheme-targets.ts`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { readArchiveMetadata } from '../../src/pmtiles/archive-metadata';
import { SAMPLE_TIME_MS, sampleFlagAt } from '../../test/fixtures/mrms-frames';
import { mrmsSample, REFLECTIVITY_SAMPLE } from '../../test/fixtures/mrms-sample';
import type { Frame } from './archives';
import { log } from './runner';
import type { ScenarioContext } from './scenarios';
import {
  TYPED_BENCH_SCHEMES,
  TYPED_SCHEME_TILE,
  typedAgainst,
  typedPlainAgainst,
} from './typed-scheme-targets';
import { startPublishedBackend, startReplica } from './service';
import { hotTiles } from './windows';

const ROOT = path.resolve(__dirname, '../..');
/** NOAA stamps PrecipFlag to the 2-minute cycle: the sample's cycle is 39 s before it. */
const FLAG_CYCLE_MS = SAMPLE_TIME_MS - 39_000;

/** Rounds of plain/scheme pairs per scheme in a full run. */
export const TYPED_ROUNDS = 3;

/**
 * The typed archive of the reflectivity sample, made by the one-shot command in `workDir`.
 * Throws unless the archive says it is typed (a refused flag still writes an untyped frame).
 */
export async function makeTypedArchive(workDir: string): Promise<Buffer> {
  const out = path.join(workDir, 'typed-archive');
  await fs.mkdir(out, { recursive: true });
  const flag = sampleFlagAt(FLAG_CYCLE_MS);
  const flagFile = path.join(workDir, flag.name);
  await fs.writeFile(flagFile, flag.bytes);
  const args = [
    path.join(ROOT, 'dist/bin/mrms.js'),
    '--file',
    mrmsSample(REFLECTIVITY_SAMPLE),
    '--type-file',
    flagFile,
    '--out',
    out,
  ];
  // The sample is from 2023: a retention that keeps it (the command refuses older frames).
  execFileSync(process.execPath, args, {
    env: { ...process.env, RADAR_RETENTION_S: String(10 * 365 * 86_400) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const [file] = (await fs.readdir(out)).filter((f) => f.endsWith('.pmtiles'));
  if (!file) throw new Error(`mrms wrote no archive into ${out}`);
  const bytes = await fs.readFile(path.join(out, file));
  const meta = readArchiveMetadata(bytes) as { precipitationType?: { typed?: boolean } };
  if (meta.precipitationType?.typed !== true) throw new Error(`${file} was published untyped`);
  return bytes;
}

/** Bit depths (IHDR octet 24) of the tiles, counted: typed tiles with snow or hail are 8-bit. */
function bitDepths(tiles: ReadonlyArray<{ bytes: Buffer }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of tiles) out[`${t.bytes[24]}-bit`] = (out[`${t.bytes[24]}-bit`] ?? 0) + 1;
  return out;
}

/**
 * Publishes the typed archive under the newest frame's timestamp on its own backend, starts
 * `api-typed` on it, and measures, round after round, for every scheme, the 64 hot tiles plain
 * and then in that scheme on the same replica. Records the tiles' make-up in `settings`.
 */
export async function typedSchemeTileScenario(ctx: ScenarioContext, runDir: string): Promise<void> {
  const { opts, runner, topo, frames, settings } = ctx;
  const dir = path.join(runDir, 'typed');
  const logDir = path.join(dir, 'logs');
  await fs.mkdir(logDir, { recursive: true });
  const typed: Frame = { timestamp: frames[0]!.timestamp, bytes: await makeTypedArchive(dir) };
  const tiles = await hotTiles(typed, 64);
  if (tiles.length === 0) throw new Error('the typed archive holds no tiles at zoom 5-6');
  settings.typedTiles =
    `${tiles.length} tiles of the typed sample archive (${typed.bytes.length} bytes), ` +
    `${tiles.reduce((s, t) => s + t.bytes.length, 0)} bytes in all, ${JSON.stringify(bitDepths(tiles))}`;
  log(`typed archive: ${settings.typedTiles}`);

  const stops: Array<() => Promise<void>> = [];
  topo.onStop(async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => {});
  });
  const backend = await startPublishedBackend(dir, logDir, [typed], stops);
  const replica = await startReplica('api-typed', {
    redisUrl: backend.redis.url,
    s3: backend.s3server.s3,
    logDir,
    env: { RADAR_CACHE_MB: String(opts.cacheMb), RADAR_STALE_AFTER_S: '3600' },
    expectTimestamps: 1,
  });
  stops.push(() => replica.proc.stop());
  runner.watch('api-typed', replica.proc.pid);
  runner.watch('redis-typed', backend.redis.process.pid!);
  try {
    const load = (paths: string[]) => ({
      sequences: [paths.map((p) => ({ path: p }))],
      expect: [200],
      connections: opts.connections,
    });
    const plain = tiles.map((t) => t.path);
    const endpoint = (against: string) => ({
      against,
      kind: 'service' as const,
      url: replica.url,
      shown: ['api-typed', 'redis-typed'],
    });
    const rounds = opts.quick ? 1 : TYPED_ROUNDS;
    for (let round = 1; round <= rounds; round++) {
      for (const scheme of TYPED_BENCH_SCHEMES) {
        const inScheme = plain.map((p) => p.replace(/^(\/tiles\/[0-9]{12})\//, `$1/${scheme}/`));
        const before = endpoint(typedPlainAgainst(scheme, round));
        await runner.measure(TYPED_SCHEME_TILE, before, load(plain));
        await runner.measure(
          TYPED_SCHEME_TILE,
          endpoint(typedAgainst(scheme, round)),
          load(inScheme),
        );
      }
    }
  } finally {
    runner.unwatch('api-typed');
    runner.unwatch('redis-typed');
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => {});
  }
}
