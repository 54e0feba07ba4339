/**
 * Processes the bench starts: built entry points (`node dist/bin/*.js`, exactly what
 * production runs) and the bench's own TypeScript servers (`node --import tsx`), each with
 * its output in a log file under the run directory, so a failure can be read afterwards and
 * no pipe back-pressure or echo costs the measured process anything unusual.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import readline from 'node:readline';

export interface BenchProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

function tailOf(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '';
  }
}

/**
 * A spawned child as a bench process: `stop()` sends SIGTERM, SIGKILL after 5 s, and resolves
 * once it has exited (at once when it already has), so every bench process stops the same way.
 */
export function benchProcess(name: string, child: ChildProcess, logFile: string): BenchProcess {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    pid: child.pid!,
    logFile,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** `node <entry>` with `env` on top of this environment; output to `<logDir>/<name>.log`. */
export function startNode(
  name: string,
  entry: string,
  env: Record<string, string>,
  logDir: string,
  nodeArgs: readonly string[] = [],
): BenchProcess {
  const logFile = path.join(logDir, `${name}.log`);
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    env: { ...process.env, ...env },
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  return benchProcess(name, child, logFile);
}

/**
 * A bench server written in TypeScript (`tools/bench/servers/*.ts`) that prints one JSON line
 * when it is listening; resolves with that line parsed.
 */
export async function startTsServer<T>(
  name: string,
  file: string,
  args: string[],
  logDir: string,
): Promise<{ proc: BenchProcess; info: T }> {
  const logFile = path.join(logDir, `${name}.log`);
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    stdio: ['ignore', 'pipe', fd],
  });
  fs.closeSync(fd);
  const proc = benchProcess(name, child, logFile);
  const info = await new Promise<T>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within 20 s\n${tailOf(logFile)}`)),
      20_000,
    );
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line) as T);
      } catch {
        reject(new Error(`${name} printed ${line}`));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code})\n${tailOf(logFile)}`));
    });
  });
  // Keep draining stdout so the child never blocks on a full pipe.
  child.stdout!.resume();
  return { proc, info };
}

/** One GET; resolves with status, headers and body (for readiness checks and captures). */
export function httpGet(
  url: string,
  headers: Record<string, string> = {},
  timeoutMs = 2000,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: GET ${url}`)));
    req.on('error', reject);
  });
}

/** Polls `check` every `intervalMs` until it resolves true; rejects with `what` at the deadline. */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs?: number; intervalMs?: number; proc?: BenchProcess } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (await check().catch(() => false)) return;
    const p = options.proc?.process;
    if (p && (p.exitCode !== null || p.signalCode !== null)) {
      throw new Error(
        `${options.proc!.name} exited while waiting for ${what}\n${tailOf(options.proc!.logFile)}`,
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what}${options.proc ? `\n${tailOf(options.proc.logFile)}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 50));
  }
}
