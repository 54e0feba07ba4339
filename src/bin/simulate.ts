/**
 * Stand-alone radar producer: `npm run simulate -- --out ./data --backfill 30 --cadence 120
 * --max-zoom 7 [--once]`. Publishes archives into a directory (the embedded API's data
 * directory) with a progress line per frame on stderr; Ctrl-C stops after the frame in flight.
 * With `S3_ENDPOINT` (and the other `S3_*` variables of src/config.ts) set, frames are uploaded
 * to the bucket instead (`{S3_PREFIX}{YYYYMMDDHHmm}.pmtiles`, one PUT each, never overwritten).
 * With `NOWCAST` on (the default) each frame's forecasts follow it (`forecast-{base}-{LLL}`);
 * `--once` waits for the newest frame's before it exits.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { parseCommandLine } from './command-line';
import { createLogger } from '../logger';
import { integerFlag } from '../shared/integer-limit';
import { SIM_LIMITS } from '../sim/limits';
import { defaultPoolSize } from '../render/render-pool';
import type { FrameProgress } from '../sim/simulator';
import { openArchives, openUploadArchives } from '../wiring/open-archives';
import { onStopSignals } from '../wiring/stop-signals';
import { buildSimulator } from '../wiring/simulator';
import { exitWhenWritten } from '../shared/flushed-exit';

const { backfill, cadenceS, maxZoom, workers } = SIM_LIMITS;
const USAGE = `usage: simulate [--out DIR] [--backfill N] [--cadence SECONDS] [--max-zoom Z]
                [--workers N] [--seed N] [--once] [--log-level LEVEL]

  --out DIR          archive directory (default ./data)
  --backfill N       frames published at start, the current one included, ${backfill.min}..${backfill.max} (default ${backfill.default})
  --cadence SECONDS  seconds between frames, a multiple of ${cadenceS.step} (default ${cadenceS.default})
  --max-zoom Z       highest zoom rendered, ${maxZoom.min}..${maxZoom.max} (default ${maxZoom.default})
  --workers N        render threads, ${workers.min}..${workers.max} (default ${defaultPoolSize()})
  --seed N           weather seed (default: the built-in one)
  --once             publish the startup frames, then exit
  --log-level LEVEL  JSON log level on stdout (default warn)
`;

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: 'string', default: './data' },
      backfill: { type: 'string', default: String(SIM_LIMITS.backfill.default) },
      cadence: { type: 'string', default: String(SIM_LIMITS.cadenceS.default) },
      'max-zoom': { type: 'string', default: String(SIM_LIMITS.maxZoom.default) },
      workers: { type: 'string' },
      seed: { type: 'string' },
      once: { type: 'boolean', default: false },
      'log-level': { type: 'string', default: 'warn' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  return {
    help: values.help,
    out: values.out,
    backfill: integerFlag('backfill', values.backfill, SIM_LIMITS.backfill),
    cadenceS: integerFlag('cadence', values.cadence, SIM_LIMITS.cadenceS),
    maxZoom: integerFlag('max-zoom', values['max-zoom'], SIM_LIMITS.maxZoom),
    workers:
      values.workers === undefined
        ? defaultPoolSize()
        : integerFlag('workers', values.workers, SIM_LIMITS.workers),
    seed:
      values.seed === undefined
        ? undefined
        : integerFlag('seed', values.seed, { min: 0, max: 2 ** 32 - 1 }),
    once: values.once,
    logLevel: values['log-level'],
  };
}

function describe(p: FrameProgress): string {
  const counter = p.phase === 'startup' ? `frame ${p.done}/${p.total}` : 'live';
  const detail =
    p.outcome === 'published'
      ? `published ${p.elapsedMs} ms ${(p.bytes / 1024).toFixed(0)} KiB`
      : p.outcome === 'skipped'
        ? 'already published, skipped'
        : `FAILED: ${p.error?.message ?? 'unknown error'}`;
  return `${counter} ${p.timestamp} ${detail}\n`;
}

async function main(): Promise<void> {
  const args = parseCommandLine(process.argv.slice(2), parse, USAGE);
  if (args === undefined) return;

  const logger = createLogger(args.logLevel, { service: 'radar-simulate' });
  const began = performance.now();
  const counts = { published: 0, skipped: 0, failed: 0 };
  let firstMs: number | undefined;
  const config = loadConfig(process.env);
  // `--out` is the directory when archives live on disk.
  const archives =
    config.archives.kind === 'fs'
      ? openArchives({ kind: 'fs', dir: args.out }, logger)
      : openUploadArchives(config.archives, logger);
  const simulator = buildSimulator(
    archives.frameSink(),
    {
      maxZoom: args.maxZoom,
      workers: args.workers,
      seed: args.seed,
      cadenceS: args.cadenceS,
      backfill: args.backfill,
      keepAlive: !args.once,
      onProgress: (p) => {
        firstMs ??= performance.now() - began;
        if (p.phase === 'startup') counts[p.outcome]++;
        process.stderr.write(describe(p));
      },
    },
    logger,
    { settings: config.nowcast },
  );

  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    stopping ??= (async () => {
      await simulator.stop();
      await archives.connections.stop();
    })();
    return stopping;
  };
  onStopSignals({
    stop: (signal) => {
      if (signal === 'SIGINT')
        process.stderr.write('stopping after the frame in flight (Ctrl-C again to quit now)\n');
      void shutdown().then(() => exitWhenWritten(0));
    },
    force: (signal) => process.exit(signal === 'SIGINT' ? 130 : 143), // asked again: do not wait
  });

  process.stderr.write(
    `simulating into ${archives.describe}: ${args.backfill} frames every ${args.cadenceS} s, zooms 0..${args.maxZoom}, ${args.workers} worker(s)\n`,
  );
  await simulator.start();
  if (stopping) return;
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  process.stderr.write(
    `startup done in ${seconds(performance.now() - began)} s (first frame after ${seconds(firstMs ?? 0)} s): ` +
      `${counts.published} published, ${counts.skipped} skipped, ${counts.failed} failed\n`,
  );
  if (args.once) {
    await simulator.forecastsIdle(); // the newest frame's forecasts are part of the start
    await shutdown();
    process.exitCode = counts.failed > 0 ? 1 : 0;
    return;
  }
  process.stderr.write(`publishing a frame every ${args.cadenceS} s; Ctrl-C to stop\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `simulate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  exitWhenWritten(1);
});
