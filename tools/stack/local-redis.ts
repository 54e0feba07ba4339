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

/** Options for {@link spawnRedisServer}; defaults give a throwaway loopback server. */
export interface RedisSpawnOptions {
  /** Arguments after `--port` (default: loopback bind, no persistence, warnings only). */
  readonly args?: readonly string[];
  /** A config file given before the arguments (sentinel needs one it can rewrite). */
  readonly configFile?: string;
  readonly binary?: string;
}

/** No persistence (a restart comes back empty, like a production Redis without it). */
export const THROWAWAY_REDIS_ARGS: readonly string[] = [
  '--save',
  '',
  '--appendonly',
  'no',
  '--protected-mode',
  'no',
  '--loglevel',
  'warning',
];

/** Debian's binary unless `REDIS_SERVER_BIN` names another. */
export function redisBinary(): string {
  return process.env['REDIS_SERVER_BIN'] || 'redis-server';
}

/**
 * Spawns `redis-server` on `port` and resolves once it answers PING; rejects with its stderr if
 * it exits first, and kills it if it stays silent for 10 s. The one way the stack, the bench and
 * the test harness start a local Redis.
 */
export async function spawnRedisServer(
  port: number,
  options: RedisSpawnOptions = {},
): Promise<ChildProcess> {
  const args = options.args ?? ['--bind', '127.0.0.1', ...THROWAWAY_REDIS_ARGS];
  const child = spawn(
    options.binary ?? redisBinary(),
    [...(options.configFile ? [options.configFile] : []), '--port', String(port), ...args],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let exitedEarly = false;
  child.once('exit', () => (exitedEarly = true));
  child.once('error', (err) => {
    exitedEarly = true;
    stderr += `cannot start redis-server (apt-get install redis-server): ${err.message}`;
  });
  const deadline = Date.now() + 10_000;
  while (!(await pingRedis(port))) {
    if (exitedEarly)
      throw new Error(`redis-server on port ${port} exited: ${stderr.trim() || 'no output'}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not answer within 10 s`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return child;
}

/** Starts `redis-server` on `port` (a free one by default). Rejects if the binary is missing. */
export async function startLocalRedis(
  options: { port?: number; binary?: string } = {},
): Promise<LocalRedis> {
  const port = options.port ?? (await freePort());
  const child = await spawnRedisServer(port, { binary: options.binary });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
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
