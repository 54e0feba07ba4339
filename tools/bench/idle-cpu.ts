/**
 * `tsx tools/bench/idle-cpu.ts [--seconds S] [--settle S] [--timestamps N] [--dist DIR] [--cpu-prof DIR]`:
 * CPU of one replica without requests (utime + stime from /proc over S seconds, after it
 * settled) with an N-timestamp catalog in Redis — the idle target's row on its own, without
 * the rest of `npm run bench`. `--cpu-prof` writes the replica's profile to DIR, so what the
 * timers, resyncs and probes cost shows up by function.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { olderTimestamps, startRowRun } from './archives';
import { cpuTicks } from './proc-stats';
import {
  startPublishedBackend,
  populateCatalog,
  startRedisWithKeys,
  startReplica,
} from './service';

const ROOT = path.resolve(__dirname, '../..');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '60' },
      settle: { type: 'string', default: '5' },
      timestamps: { type: 'string', default: '10000' },
      dist: { type: 'string', default: path.join(ROOT, 'dist/bin') },
      'cpu-prof': { type: 'string' },
    },
  });
  const seconds = Number(values.seconds);
  const timestamps = Number(values.timestamps);
  const run = await startRowRun('radar-idle-');
  const { runDir, logDir, frames, stops } = run;
  try {
    const { s3server, ingest, metas } = await startPublishedBackend(runDir, logDir, frames, stops);
    await ingest.stop();
    const redis10k = await startRedisWithKeys();
    stops.push(() => redis10k.stop());
    await populateCatalog(redis10k.url, metas, olderTimestamps(frames, timestamps - frames.length));
    process.env.RADAR_BENCH_API_DIST = path.resolve(values.dist);
    const profDir = values['cpu-prof'] ? path.resolve(values['cpu-prof']) : undefined;
    if (profDir) await fsp.mkdir(profDir, { recursive: true });
    const replica = await startReplica('api-idle', {
      redisUrl: redis10k.url,
      s3: s3server.s3,
      logDir,
      env: { RADAR_CACHE_MB: '64', RADAR_STALE_AFTER_S: '3600' },
      expectTimestamps: timestamps,
      nodeArgs: profDir
        ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval=5000']
        : [],
    });
    stops.push(() => replica.proc.stop());
    await new Promise((r) => setTimeout(r, Number(values.settle) * 1000));
    const before = cpuTicks(replica.proc.pid);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const ticks = cpuTicks(replica.proc.pid) - before;
    const cores = ticks / 100 / seconds;
    process.stdout.write(
      `idle replica, ${timestamps} timestamps, ${seconds} s: ${ticks} ticks = ${cores.toFixed(4)} cores\n`,
    );
  } finally {
    await run.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
