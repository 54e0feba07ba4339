/**
 * A throwaway `redis-server` (Debian's binary) on a loopback port, without persistence, for
 * `npm run stack` and the test harness on machines without a container runtime.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from './free-port';

export interface LocalRedis {
  readonly port: number;
  readonly url: string;
  readonly process: ChildProcess;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
}

/** One PING over a raw socket; true on +PONG (false on refusal, error or 500 ms silence). */
export function pingRedis(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** Resolves when a PING on `port` answers PONG, or rejects after `timeoutMs`. */
export async function waitForPong(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pingRedis(port))) {
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts `redis-server` on `port` (a free one by default). Rejects if the binary is missing. */
export async function startLocalRedis(
  options: { port?: number; binary?: string } = {},
): Promise<LocalRedis> {
  const port = options.port ?? (await freePort());
  const child = spawn(
    options.binary ?? 'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err) =>
      reject(new Error(`cannot start redis-server (apt-get install redis-server): ${err.message}`)),
    );
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  failed.catch(() => {});
  await Promise.race([waitForPong(port), failed]);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
