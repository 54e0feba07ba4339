/**
 * `tsx tools/bench/pipeline-cost.ts [--requests N] [--rounds R] [--dist DIR,...] [--cpu-prof DIR]`:
 * CPU cost of one replica per request for a fixed number of requests (status-200, status-304,
 * hot 16 KiB range, hot z/x/y tile), read from /proc (utime + stime of the replica only) and reported as the
 * lowest of R rounds: contention from other work on a shared machine only ever adds CPU time,
 * so the minimum is the figure closest to the code's own cost. `--dist` compares builds
 * (e.g. a copy of dist/ from before a change) in alternating rounds against the same
 * Redis/S3/ingest, so drift of the machine hits each build alike.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startRowRun } from './archives';
import { startLoadGenerator } from './load-client';
import type { PlannedRequest } from './load-job';
import { cpuTicks } from './proc-stats';
import { startPublishedBackend, AUTH_HEADERS, startReplica } from './service';
import { captureStatus } from './topology';
import { hotTiles, hotWindows } from './windows';

const ROOT = path.resolve(__dirname, '../..');

function cpuUs(pid: number): number {
  return cpuTicks(pid) * 10_000;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '20000' },
      rounds: { type: 'string', default: '3' },
      dist: { type: 'string', default: path.join(ROOT, 'dist/bin') },
      'cpu-prof': { type: 'string' },
      only: { type: 'string', default: 'status-200,status-304,hot-range,hot-tile' },
      env: { type: 'string', default: '' },
    },
  });
  const requests = Number(values.requests);
  const rounds = Number(values.rounds);
  const dists = values.dist.split(',').map((d) => path.resolve(d));
  const extraEnv = Object.fromEntries(
    values.env
      .split(',')
      .filter(Boolean)
      .map((kv) => kv.split('=') as [string, string]),
  );
  const run = await startRowRun('radar-pipe-');
  const { runDir, logDir, frames, stops } = run;
  const gen = await startLoadGenerator();
  stops.push(() => gen.stop());
  try {
    const { redis, s3server } = await startPublishedBackend(runDir, logDir, frames, stops);
    const loads: Record<string, { sequences: PlannedRequest[][]; expect: number }> = {
      'status-200': { sequences: [[{ path: '/status.json' }]], expect: 200 },
      'status-304': { sequences: [], expect: 304 },
      'hot-range': { sequences: [hotWindows(frames[0]!, 64)], expect: 206 },
      'hot-tile': {
        sequences: [(await hotTiles(frames[0]!, 64)).map((t) => ({ path: t.path }))],
        expect: 200,
      },
    };
    const only = values.only.split(',');
    const results: Record<string, number[]> = {};
    for (let round = 0; round < rounds; round++) {
      for (const [i, dist] of dists.entries()) {
        process.env.RADAR_BENCH_API_DIST = dist;
        const profDir = values['cpu-prof'] ? path.join(values['cpu-prof'], `d${i}`) : undefined;
        if (profDir) await fsp.mkdir(profDir, { recursive: true });
        const replica = await startReplica(`api-${i}`, {
          redisUrl: redis.url,
          s3: s3server.s3,
          logDir,
          env: { RADAR_CACHE_MB: '64', RADAR_STALE_AFTER_S: '3600', ...extraEnv },
          expectTimestamps: frames.length,
          nodeArgs: profDir
            ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval=100']
            : [],
        });
        const etag = (await captureStatus(replica.url)).etag;
        loads['status-304']!.sequences = [
          [{ path: '/status.json', headers: { 'if-none-match': etag } }],
        ];
        for (const name of only) {
          const load = loads[name]!;
          const job = {
            baseUrl: replica.url,
            connections: 32,
            headers: { ...AUTH_HEADERS },
            sequences: load.sequences,
            expect: [load.expect],
            timeoutS: 10,
            durationS: 60,
          };
          await gen.run({ ...job, label: 'warm', amount: Math.min(5000, requests) });
          const before = cpuUs(replica.proc.pid);
          const r = await gen.run({ ...job, label: name, amount: requests });
          const us = (cpuUs(replica.proc.pid) - before) / r.responses;
          if (r.errors > 0)
            throw new Error(`${name}: ${r.errors} errors ${JSON.stringify(r.statusCounts)}`);
          const key = `${name} ${path.relative(ROOT, dist)}`;
          (results[key] ??= []).push(Number(us.toFixed(1)));
          process.stdout.write(`round ${round} ${key}: ${us.toFixed(1)} µs/req (${r.rps} req/s)\n`);
        }
        await replica.proc.stop();
      }
    }
    process.stdout.write('\nmin (all rounds) µs/req:\n');
    for (const [key, list] of Object.entries(results)) {
      process.stdout.write(`${key.padEnd(50)} min ${Math.min(...list)}  all ${list.join(' ')}\n`);
    }
  } finally {
    await run.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
