/**
 * The nowcast publishing benchmark: the MRMS producer (`node dist/bin/mrms.js`, follow mode,
 * NOWCAST on) over a local directory feed into which a real sequence is released one frame at
 * a time; for each frame, the time from its observed archive being written to its six forecast
 * archives being written, and the producer's CPU-seconds in between (the follower is idle then:
 * that is the cycle: one GRIB2 decode, motion, six leads extrapolated, rendered and written);
 * the producer's peak RSS over the whole run. The data directory is an embedded replica's
 * (in this process), whose `/status.json` is polled every 100 ms: the time from the observed
 * frame being listed (`timestamps`) to all six leads of its base being listed (`forecasts`).
 *
 *   npm run build && nice -n 10 npx tsx tools/bench/nowcast-publish.ts --frames <dir>
 *   npm run build && nice -n 10 npx tsx tools/bench/nowcast-publish.ts --typed 10
 *
 * `--typed N`: instead, N frames of the NOAA reflectivity sample with its PrecipFlag sample
 * (test/fixtures/mrms/, retimed 2 minutes apart: the same weather each time, so the motion is
 * still), each flag released before its frame: typed frames and typed forecasts, the costs of
 * a typed feed. Results go to nowcast-publish-typed.{json,md}.
 *
 * `<dir>` holds MRMS PrecipRate files (the producer renders reflectivity, so each becomes
 * reflectivity by Marshall-Palmer first: nowcast-reflectivity.ts), written to a temporary
 * directory, never to the repository. Writes tools/bench/results/nowcast-publish.{json,md}.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { listFrameFiles } from '../../src/bin/nowcast-frames';
import { forecastKey } from '../../src/domain/forecast-frames';
import { formatTimestamp } from '../../src/domain/timestamps';
import { auth, startEmbeddedApi } from '../../test/harness/embedded-api';
import { request } from '../../test/harness/http-client';
import { cpuTicks } from './proc-stats';
import { reflectivityFromRate } from './nowcast-reflectivity';
import { SAMPLE_TIME_MS, sampleFlagAt, sampleFrameAt } from '../../test/fixtures/mrms-frames';

const ROOT = path.resolve(__dirname, '../..');
const LEADS = [10, 20, 30, 40, 50, 60];
const BASELINE_FRAMES = 5; // 10 minutes of 2-minute frames

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<number> {
  const began = Date.now();
  while (!check()) {
    if (Date.now() - began > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
  return Date.now();
}

function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/^VmHWM:\s+(\d+) kB/m.exec(status)![1]) / 1024);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const nearestRank = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(p * xs.length) - 1)]!;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { frames: { type: 'string' }, work: { type: 'string' }, typed: { type: 'string' } },
    strict: true,
  });
  const typed = values.typed === undefined ? undefined : Number(values.typed);
  if (!values.frames && !typed)
    throw new Error('usage: nowcast-publish.ts --frames <dir> | --typed <frames>');
  const work = values.work ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'radar-nowcast-publish-')));
  const made = path.join(work, 'made');
  const api = await startEmbeddedApi({ env: { LOG_LEVEL: 'silent' } });
  const data = api.dataDir;
  /** When each observed timestamp, and each base's six leads, were first listed. */
  const observedListed = new Map<string, number>();
  const forecastsListed = new Map<string, number>();
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const answer = await request(api.baseUrl, '/status.json', { headers: auth() }).catch(
        () => undefined,
      );
      if (answer?.status === 200) {
        const now = Date.now();
        const status = answer.json() as {
          timestamps: string[];
          forecasts: Array<{ base: string }>;
        };
        for (const ts of status.timestamps)
          if (!observedListed.has(ts)) observedListed.set(ts, now);
        const base = status.forecasts[0]?.base;
        if (base && status.forecasts.length === LEADS.length && !forecastsListed.has(base))
          forecastsListed.set(base, now);
      }
      await sleep(100);
    }
  })();
  await fs.mkdir(made, { recursive: true });
  const frames: { name: string; timestamp: string; flag?: string }[] = [];
  if (typed) {
    for (let k = 0; k < typed; k++) {
      const frame = sampleFrameAt(SAMPLE_TIME_MS + k * 120_000);
      const flag = sampleFlagAt(SAMPLE_TIME_MS - 39_000 + k * 120_000);
      await fs.writeFile(path.join(made, frame.name), frame.bytes);
      await fs.writeFile(path.join(made, flag.name), flag.bytes);
      frames.push({
        name: frame.name,
        flag: flag.name,
        timestamp: formatTimestamp(SAMPLE_TIME_MS + k * 120_000),
      });
    }
  } else {
    for (const file of await listFrameFiles(values.frames!)) {
      const stamp = new Date(file.timeMs).toISOString().replace(/[-:]/g, '').replace('T', '-');
      const name = `MRMS_ReflectivityAtLowestAltitude_00.50_${stamp.slice(0, 15)}.grib2.gz`;
      if (!existsSync(path.join(made, name)))
        await fs.writeFile(path.join(made, name), await reflectivityFromRate(file.file, file.name));
      frames.push({ name, timestamp: formatTimestamp(file.timeMs) });
    }
  }
  const day = path.join(work, 'feed', frames[0]!.timestamp.slice(0, 8));
  await fs.rm(path.join(work, 'feed'), { recursive: true, force: true });
  await fs.mkdir(day, { recursive: true });

  const child = spawn(process.execPath, [path.join(ROOT, 'dist/bin/mrms.js')], {
    cwd: work,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      ADMIN_PORT: '0',
      MRMS_SOURCE: path.join(work, 'feed'),
      RADAR_DATA_DIR: data,
      MRMS_BACKFILL: '3',
      MRMS_POLL_S: '1',
      MRMS_TYPE_PRODUCT: typed ? 'PrecipFlag_00.00' : 'none',
      NOWCAST: '1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const pid = child.pid!;
  const rows: {
    base: string;
    latencyS: number;
    cpuS: number;
    cycleS: number;
    listedS: number;
  }[] = [];
  try {
    for (let i = 0; i < frames.length; i++) {
      const { name, timestamp, flag } = frames[i]!;
      if (flag) {
        await fs.copyFile(path.join(made, flag), path.join(day, `.${flag}.part`));
        await fs.rename(path.join(day, `.${flag}.part`), path.join(day, flag));
      }
      await fs.copyFile(path.join(made, name), path.join(day, `.${name}.part`));
      await fs.rename(path.join(day, `.${name}.part`), path.join(day, name));
      const observed = path.join(data, `${timestamp}.pmtiles`);
      const observedAt = await until(() => existsSync(observed), 300_000, observed);
      const cpuBefore = cpuTicks(pid);
      if (i < BASELINE_FRAMES) {
        await sleep(5000); // no frame 10 minutes before: the worker only keeps its echo image
        continue;
      }
      const names = LEADS.map((lead) =>
        path.join(data, `${forecastKey({ base: timestamp, lead })}.pmtiles`),
      );
      const doneAt = await until(() => names.every((n) => existsSync(n)), 300_000, 'forecasts');
      const cpuS = (cpuTicks(pid) - cpuBefore) / 100;
      const published = (l: string) =>
        l.includes('"nowcast forecasts published"') && l.includes(timestamp);
      await until(() => log.split('\n').some(published), 10_000, 'the cycle log line');
      const line = log.split('\n').find(published);
      const cycleS = line ? (JSON.parse(line) as { ms: number }).ms / 1000 : NaN;
      await until(() => forecastsListed.has(timestamp), 60_000, 'forecasts listed');
      const listedS = (forecastsListed.get(timestamp)! - observedListed.get(timestamp)!) / 1000;
      const latencyS = (doneAt - observedAt) / 1000;
      rows.push({ base: timestamp, latencyS, cpuS, cycleS, listedS });
      process.stderr.write(`${timestamp}: ${JSON.stringify(rows.at(-1))}\n`);
      await sleep(1000);
    }
  } finally {
    const peak = peakRssMiB(pid);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    polling = false;
    await poller;
    await api.stop();
    const summary = {
      measuredAt: new Date().toISOString(),
      load: os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' '),
      frames: frames.length,
      cycles: rows.length,
      peakRssMiB: peak,
      cpuS: { median: median(rows.map((r) => r.cpuS)), max: Math.max(...rows.map((r) => r.cpuS)) },
      latencyS: {
        median: median(rows.map((r) => r.latencyS)),
        p95: nearestRank(
          rows.map((r) => r.latencyS),
          0.95,
        ),
        max: Math.max(...rows.map((r) => r.latencyS)),
      },
      cycleS: { median: median(rows.map((r) => r.cycleS)) },
      listedS: {
        median: median(rows.map((r) => r.listedS)),
        p95: nearestRank(
          rows.map((r) => r.listedS),
          0.95,
        ),
        max: Math.max(...rows.map((r) => r.listedS)),
      },
      rows,
    };
    const md = [
      `Measured ${summary.measuredAt} (load average ${summary.load}), ${summary.frames} frames released one at a time, ${summary.cycles} cycles.`,
      '',
      '| figure | median | p95 | max |',
      '| --- | --- | --- | --- |',
      `| observed frame written to its six forecasts written (s) | ${summary.latencyS.median.toFixed(1)} | ${summary.latencyS.p95.toFixed(1)} | ${summary.latencyS.max.toFixed(1)} |`,
      `| observed frame listed to all six leads listed on the replica (s) | ${summary.listedS.median.toFixed(1)} | ${summary.listedS.p95.toFixed(1)} | ${summary.listedS.max.toFixed(1)} |`,
      `| producer CPU-seconds per cycle (decode, motion, 6 leads rendered and written) | ${summary.cpuS.median.toFixed(1)} | - | ${summary.cpuS.max.toFixed(1)} |`,
      `| cycle in its worker, wall (s, \`radar_nowcast_cycle_seconds\`) | ${summary.cycleS.median.toFixed(1)} | - | - |`,
      `| producer peak RSS over the run (MiB) | - | - | ${summary.peakRssMiB} |`,
      '',
    ].join('\n');
    const out = path.join(ROOT, 'tools/bench/results');
    const file = typed ? 'nowcast-publish-typed' : 'nowcast-publish';
    await fs.writeFile(path.join(out, `${file}.json`), `${JSON.stringify(summary, null, 2)}\n`);
    await fs.writeFile(path.join(out, `${file}.md`), md);
    process.stdout.write(md);
    if (!values.work) await fs.rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `nowcast-publish: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exitCode = 1;
});
