/**
 * A real, disposable Redis for integration tests: a `redis:7` container when a container
 * runtime answers, otherwise the local `redis-server` binary on a free loopback port (no
 * persistence, so a restart comes back empty, like a production Redis without persistence).
 * Tests can kill, restart, pause and resume it to exercise the outage paths for real.
 */
import { type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { freePort } from '../../tools/stack/free-port';
import {
  redisBinary,
  spawnRedisServer,
  THROWAWAY_REDIS_ARGS as REDIS_ARGS,
} from '../../tools/stack/local-redis';
import { chooseBackend, loadedTestcontainers, type TestBackend } from './container-runtime';
import { waitFor } from './wait';

export interface RedisServer {
  /** `redis://host:port`, stable across `restart()`. */
  readonly url: string;
  readonly port: number;
  readonly backend: TestBackend;
  /** Stops for good (graceful). */
  stop(): Promise<void>;
  /** Dies at once (SIGKILL / container killed); `restart()` brings it back. */
  kill(): Promise<void>;
  /** A fresh, empty server on the same port (kills the current one first if it runs). */
  restart(): Promise<void>;
  /** Freezes the server (SIGSTOP / container pause): connections stay open, nothing answers. */
  pause(): Promise<void>;
  resume(): Promise<void>;
}

let announced = false;

function announce(line: string): void {
  if (announced) return;
  announced = true;
  console.info(`[redis harness] ${line}`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Spawns redis-server (optionally from a config file) on `port` with `args`; resolves once it answers PING. */
function spawnRedis(
  port: number,
  args?: readonly string[],
  configFile?: string,
): Promise<ChildProcess> {
  return spawnRedisServer(port, { args, configFile });
}

async function startLocal(reason: string): Promise<RedisServer> {
  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 1; !child; attempt += 1) {
    port = await freePort();
    try {
      child = await spawnRedis(port);
    } catch (err) {
      if (attempt >= 3) throw err; // a port taken between probe and bind: try another
    }
  }
  announce(`local redis-server (${redisBinary()}), ${reason}`);
  let paused = false;
  const killOnExit = () => child?.kill('SIGKILL');
  process.on('exit', killOnExit);

  const kill = async () => {
    if (!child) return;
    const current = child;
    child = undefined;
    paused = false;
    current.kill('SIGKILL');
    await exited(current);
  };

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    backend: 'local',
    kill,
    async stop() {
      if (child) {
        const current = child;
        child = undefined;
        if (paused) current.kill('SIGCONT');
        current.kill('SIGTERM');
        await exited(current);
      }
      process.off('exit', killOnExit);
    },
    async restart() {
      await kill();
      // The old listening socket is gone with the process; retry briefly if the port lingers.
      for (let attempt = 1; ; attempt += 1) {
        try {
          child = await spawnRedis(port);
          return;
        } catch (err) {
          if (attempt >= 5) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    },
    async pause() {
      if (child && !paused) {
        child.kill('SIGSTOP');
        paused = true;
      }
    },
    async resume() {
      if (child && paused) {
        child.kill('SIGCONT');
        paused = false;
      }
    },
  };
}

async function startContainer(reason: string): Promise<RedisServer> {
  const { GenericContainer, Wait, getContainerRuntimeClient } = loadedTestcontainers();
  const create = (hostPort?: number) =>
    new GenericContainer('redis:7')
      .withCommand(['redis-server', ...REDIS_ARGS])
      .withExposedPorts(hostPort === undefined ? 6379 : { container: 6379, host: hostPort })
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .start();
  let container: Awaited<ReturnType<typeof create>> | undefined = await create();
  const port = container.getMappedPort(6379);
  const host = container.getHost();
  announce(`redis:7 container, ${reason}`);
  const dockerContainer = async () => {
    if (!container) throw new Error('redis container is not running');
    return (await getContainerRuntimeClient()).container.getById(container.getId());
  };
  let paused = false;
  const kill = async () => {
    if (!container) return;
    if (paused) await (await dockerContainer()).unpause(); // engines refuse to stop a paused container
    paused = false;
    const current = container;
    container = undefined;
    await current.stop({ timeout: 0 });
  };
  return {
    url: `redis://${host}:${port}`,
    port,
    backend: 'container',
    kill,
    stop: kill,
    async restart() {
      await kill();
      container = await create(port);
    },
    async pause() {
      if (paused) return;
      await (await dockerContainer()).pause();
      paused = true;
    },
    async resume() {
      if (!paused) return;
      await (await dockerContainer()).unpause();
      paused = false;
    },
  };
}

/** Starts a Redis on the best available backend and says once per process which one it is. */
export async function startRedis(): Promise<RedisServer> {
  const { backend, reason } = await chooseBackend();
  return backend === 'container' ? startContainer(reason) : startLocal(reason);
}

/** Local topologies (Sentinel, Cluster) for the URL-scheme tests; local binaries only. */
export interface RedisTopology {
  /** The `REDIS_URL` that designates it (`redis+sentinel://…` or `redis+cluster://…`). */
  readonly url: string;
  stop(): Promise<void>;
}

/** Whether the local `redis-server` binary can be run (topology tests skip without it). */
export function hasLocalRedisBinary(): boolean {
  const bin = redisBinary();
  return bin.includes('/') ? fs.existsSync(bin) : true;
}

async function stopAll(children: ChildProcess[], dir: string): Promise<void> {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map(exited));
  fs.rmSync(dir, { recursive: true, force: true });
}

/** A master and one Sentinel monitoring it as `mymaster`: `redis+sentinel://127.0.0.1:<sentinel>/mymaster`. */
export async function startRedisSentinel(): Promise<RedisTopology> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-sentinel-'));
  const children: ChildProcess[] = [];
  let sentinelPort = 0;
  try {
    const masterPort = await freePort();
    children.push(await spawnRedis(masterPort));
    sentinelPort = await freePort();
    const conf = path.join(dir, 'sentinel.conf');
    // Sentinel rewrites its config file, so it must be a writable file of its own.
    fs.writeFileSync(
      conf,
      `sentinel monitor mymaster 127.0.0.1 ${masterPort} 1\nsentinel down-after-milliseconds mymaster 2000\n`,
    );
    children.push(
      await spawnRedis(
        sentinelPort,
        ['--sentinel', '--bind', '127.0.0.1', '--dir', dir, '--protected-mode', 'no'],
        conf,
      ),
    );
  } catch (err) {
    await stopAll(children, dir);
    throw err;
  }
  return {
    url: `redis+sentinel://127.0.0.1:${sentinelPort}/mymaster`,
    stop: () => stopAll(children, dir),
  };
}

/** `masters` cluster nodes with the slots split between them: `redis+cluster://127.0.0.1:<p1>,…`. */
export async function startRedisCluster(masters = 3): Promise<RedisTopology> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  const admins: Redis[] = [];
  try {
    for (let i = 0; i < masters; i += 1) {
      const port = await freePort();
      ports.push(port);
      children.push(
        await spawnRedis(port, [
          '--bind',
          '127.0.0.1',
          ...REDIS_ARGS,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          path.join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '2000',
          '--dir',
          dir,
        ]),
      );
    }
    for (const port of ports)
      admins.push(
        new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 }),
      );
    const per = Math.ceil(16384 / masters);
    await Promise.all(
      admins.map((node, i) =>
        node.call(
          'CLUSTER',
          'ADDSLOTSRANGE',
          String(i * per),
          String(Math.min(16383, (i + 1) * per - 1)),
        ),
      ),
    );
    for (const port of ports.slice(1))
      await admins[0]!.call('CLUSTER', 'MEET', '127.0.0.1', String(port));
    await waitFor(
      async () => {
        const infos = await Promise.all(
          admins.map((a) => a.call('CLUSTER', 'INFO') as Promise<string>),
        );
        return infos.every(
          (info) =>
            info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${masters}`),
        );
      },
      15_000,
      'redis cluster state ok',
      50,
    );
  } catch (err) {
    admins.forEach((a) => a.disconnect());
    await stopAll(children, dir);
    throw err;
  }
  admins.forEach((a) => a.disconnect());
  return {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    stop: () => stopAll(children, dir),
  };
}
