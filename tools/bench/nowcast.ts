/**
 * The nowcast benchmark: skill and cost of `npm run nowcast` against persistence and the peer
 * method (OpenCV Farneback flow plus stepwise semi-Lagrangian advection, nowcast-peer.py, run
 * by Debian's python3-opencv) on a real MRMS sequence, all in one run on the same cases.
 *
 *   npx tsx tools/bench/nowcast.ts --frames <dir of MRMS frames> [--cycles 3]
 *
 * The sequence is not part of the repository (docs/nowcast.md says where to get one). Writes
 * tools/bench/results/nowcast.json and nowcast.md (the section BENCHMARKS.md carries) and
 * prints the Markdown. Needs a built dist/ (`npm run build`), GNU time and /usr/bin/python3
 * with cv2 and numpy.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatTimestamp } from '../../src/domain/timestamps';
import { listFrameFiles } from '../../src/bin/nowcast-frames';
import { DEFAULT_NOWCAST_OPTIONS } from '../../src/nowcast/nowcast';
import { decodeFrames } from './nowcast-frames';

const ROOT = path.resolve(__dirname, '../..');
const LEADS = '10,20,30,40,50,60';
const STEP_MS = 120_000;

interface Cost {
  readonly cpuS: number;
  readonly peakRssMiB: number;
  readonly wallS: number;
}

/** Runs `command` under GNU time; resolves with its stderr and its cost. */
function timed(
  command: string,
  args: string[],
): Promise<{ stderr: string; stdout: string; cost: Cost }> {
  return new Promise((resolve, reject) => {
    const began = Date.now();
    execFile(
      '/usr/bin/time',
      ['-f', 'TIME %U %S %M', command, ...args],
      { cwd: ROOT, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${command} ${args.join(' ')} failed: ${stderr}`));
        const m = /TIME ([0-9.]+) ([0-9.]+) ([0-9]+)/.exec(stderr)!;
        resolve({
          stdout,
          stderr,
          cost: {
            cpuS: Number(m[1]) + Number(m[2]),
            peakRssMiB: Math.round(Number(m[3]) / 1024),
            wallS: (Date.now() - began) / 1000,
          },
        });
      },
    );
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { frames: { type: 'string' }, cycles: { type: 'string', default: '3' } },
  });
  if (!values.frames)
    throw new Error('usage: tsx tools/bench/nowcast.ts --frames DIR [--cycles N]');
  const frames = path.resolve(values.frames);
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'nowcast-bench-'));
  const measuredAt = new Date().toISOString();
  const loadAverage = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  try {
    const files = await listFrameFiles(frames);
    const decoded = path.join(work, 'frames');
    process.stderr.write(`nowcast bench: decoding ${files.length} frames for the peer\n`);
    await decodeFrames(frames, decoded);

    process.stderr.write('nowcast bench: peer (Farneback + stepwise advection)\n');
    const peerOut = path.join(work, 'peer');
    const peer = await timed('/usr/bin/python3', [
      'tools/bench/nowcast-peer.py', '--frames', decoded, '--out', peerOut, '--leads', LEADS,
    ]); // prettier-ignore
    const peerLine = /peer: ([0-9]+) cycles, ([0-9.]+) CPU-s in cycles/.exec(peer.stderr)!;
    const peerCycleCpuS = Number(peerLine[2]) / Number(peerLine[1]);

    // Our cycles: the CLI as a cron job runs it, start-up, GRIB2 decoding and all six leads.
    const times = new Set(files.map((f) => f.timeMs));
    const bases = files
      .map((f) => f.timeMs)
      .filter((t) => times.has(t - DEFAULT_NOWCAST_OPTIONS.baselineSteps * STEP_MS))
      .reverse()
      .slice(0, Number(values.cycles));
    const cycles: Cost[] = [];
    for (const base of bases) {
      process.stderr.write(`nowcast bench: our cycle at ${formatTimestamp(base)}\n`);
      const out = path.join(work, `ours-${formatTimestamp(base)}`);
      const run = await timed(process.execPath, [
        'dist/bin/nowcast.js', '--frames', frames, '--base', formatTimestamp(base), '--leads', LEADS, '--grids', out,
      ]); // prettier-ignore
      cycles.push(run.cost);
      await fs.rm(out, { recursive: true, force: true });
    }

    process.stderr.write('nowcast bench: verify (persistence, nowcast, farneback)\n');
    const json = path.join(work, 'verify.json');
    const verify = await timed(process.execPath, [
      'dist/bin/nowcast.js', 'verify', '--frames', frames, '--leads', LEADS,
      '--compare', `farneback=${peerOut}`, '--json', json,
    ]); // prettier-ignore
    const scores = JSON.parse(await fs.readFile(json, 'utf8')) as unknown;
    const result = {
      measuredAt,
      loadAverage,
      command: `npx tsx tools/bench/nowcast.ts --frames <dir> --cycles ${values.cycles}`,
      frames: files.length,
      first: formatTimestamp(files[0]!.timeMs),
      last: formatTimestamp(files.at(-1)!.timeMs),
      options: DEFAULT_NOWCAST_OPTIONS,
      ours: {
        cycleCpuS: median(cycles.map((c) => c.cpuS)),
        cycleWallS: median(cycles.map((c) => c.wallS)),
        peakRssMiB: Math.max(...cycles.map((c) => c.peakRssMiB)),
        cycles,
      },
      peer: { cycleCpuS: Number(peerCycleCpuS.toFixed(2)), peakRssMiB: peer.cost.peakRssMiB },
      verify: { cost: verify.cost, table: verify.stdout.trim(), scores },
    };
    const markdown = [
      `Measured ${measuredAt} (load average ${loadAverage}), ${files.length} frames ${result.first}..${result.last}.`,
      '',
      verify.stdout.trim(),
      '',
      `| method | CPU-s per cycle | peak RSS (MiB) |`,
      `| --- | --- | --- |`,
      `| nowcast (\`node dist/bin/nowcast.js\`, whole process: start, OpenCV load, 2 GRIB2 decodes, 6 leads written) | ${result.ours.cycleCpuS.toFixed(1)} (median of ${cycles.length}) | ${result.ours.peakRssMiB} |`,
      `| farneback peer (in one Python process, reading decoded float32 frames) | ${result.peer.cycleCpuS.toFixed(1)} | ${result.peer.peakRssMiB} |`,
      '',
    ].join('\n');
    const results = path.join(ROOT, 'tools/bench/results');
    await fs.writeFile(path.join(results, 'nowcast.json'), `${JSON.stringify(result, null, 2)}\n`);
    await fs.writeFile(path.join(results, 'nowcast.md'), markdown);
    process.stdout.write(markdown);
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
