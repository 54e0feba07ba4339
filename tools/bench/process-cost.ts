/**
 * What one command costs: wall time, CPU seconds (user + system, its waited-for children
 * included, e.g. gdal2tiles' worker processes) from GNU time, and peak resident memory of its
 * whole process tree (the sum over every live descendant, sampled from /proc every 20 ms, or
 * the largest single process's peak from the kernel if that is higher).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childPids } from './proc-stats';

/** GNU time, which reports the children's resource use on exit. */
export const GNU_TIME = '/usr/bin/time';

export interface ProcessCost {
  readonly wallS: number;
  readonly cpuS: number;
  readonly peakRssMiB: number;
}

function rssKiB(pid: number): number {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** `pid` and all its descendants now. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.pop()!;
    out.push(next);
    queue.push(...childPids(next));
  }
  return out;
}

/**
 * Runs `command args` (no shell), stdout to `stdoutFile` (default discarded), and measures it.
 * Rejects with the command's stderr when it exits non-zero.
 */
export async function measureCommand(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; stdoutFile?: string } = {},
): Promise<ProcessCost> {
  const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'radar-bench-time-')), 'time');
  const out = options.stdoutFile ? fs.openSync(options.stdoutFile, 'w') : 'ignore';
  const child = spawn(GNU_TIME, ['-f', '%e %U %S %M', '-o', report, command, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', out, 'pipe'],
  });
  if (typeof out === 'number') fs.closeSync(out);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  let peakKiB = 0;
  const timer = setInterval(() => {
    // The time process itself (a few MB) is not the measured command: its descendants are.
    const tree = descendants(child.pid!).filter((pid) => pid !== child.pid);
    peakKiB = Math.max(
      peakKiB,
      tree.reduce((sum, pid) => sum + rssKiB(pid), 0),
    );
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(timer);
  const line = fs.readFileSync(report, 'utf8').trim().split('\n').pop() ?? '';
  fs.rmSync(path.dirname(report), { recursive: true, force: true });
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`);
  const [wall, user, system, maxKiB] = line.split(' ').map(Number) as [
    number,
    number,
    number,
    number,
  ];
  return {
    wallS: wall,
    cpuS: Math.round((user + system) * 100) / 100,
    peakRssMiB: Math.round(Math.max(peakKiB, maxKiB) / 102.4) / 10,
  };
}

/** Several costs of one pipeline, run one after the other: times add up, memory is the peak. */
export function sequence(costs: readonly ProcessCost[]): ProcessCost {
  return {
    wallS: Math.round(costs.reduce((s, c) => s + c.wallS, 0) * 100) / 100,
    cpuS: Math.round(costs.reduce((s, c) => s + c.cpuS, 0) * 100) / 100,
    peakRssMiB: Math.max(...costs.map((c) => c.peakRssMiB)),
  };
}

/** The median of each figure over `costs` (runs of the same command). */
export function medianCost(costs: readonly ProcessCost[]): ProcessCost {
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  return {
    wallS: median(costs.map((c) => c.wallS)),
    cpuS: median(costs.map((c) => c.cpuS)),
    peakRssMiB: median(costs.map((c) => c.peakRssMiB)),
  };
}
