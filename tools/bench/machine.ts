/** The machine and software a run measured, for BENCHMARKS.md and the JSON results. */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly kernel: string;
  readonly node: string;
  readonly nginx: string;
  readonly redis: string;
  readonly autocannon: string;
  /**
   * Measured parallel capacity: loop iterations of two concurrent CPU-bound processes over
   * those of one alone (2.0 = two full cores; 1.0 = the cores share one core's worth).
   */
  parallelSpeedup?: number;
}

/** First match of `pattern` in a command's stdout + stderr (nginx -v prints on stderr). */
function versionOf(command: string, args: string[], pattern: RegExp): string {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  return pattern.exec(`${r.stdout ?? ''}${r.stderr ?? ''}`)?.[1] ?? 'unknown';
}

export function describeMachine(nginxBinary: string): MachineInfo {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    const info = fs.readFileSync('/proc/cpuinfo', 'utf8');
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(info)?.[1]?.trim() ?? cpuModel;
  } catch {
    // not Linux: os.cpus() is enough
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const autocannon = (require('autocannon/package.json') as { version: string }).version;
  return {
    cpuModel,
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    nginx: versionOf(nginxBinary, ['-v'], /nginx\/(\S+)/),
    redis: versionOf('redis-server', ['--version'], /v=(\S+)/),
    autocannon,
  };
}

const SPIN =
  'const end = Date.now() + 1000; let n = 0; while (Date.now() < end) n++; process.stdout.write(String(n));';

function spin(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', SPIN], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('exit', () => resolve(Number(out)));
  });
}

/**
 * How much CPU work two processes get done together compared with one alone. `nproc` can say
 * 2 while the host gives a VM one core's worth; every ratio in the report depends on it.
 */
export async function measureParallelSpeedup(): Promise<number> {
  const one = await spin();
  const [a, b] = await Promise.all([spin(), spin()]);
  return Math.round(((a! + b!) / one) * 100) / 100;
}
