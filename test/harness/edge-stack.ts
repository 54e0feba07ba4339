/**
 * The edge in tests: the shipped `nginx/nginx.conf`, rendered by the same code as
 * `npm run stack`, run by the real `nginx` binary in front of real replicas (in-process ones
 * from production-stack.ts, or spawned `node dist/bin/api.js` processes that a test may
 * SIGKILL). Nothing is skipped when nginx is missing: starting the edge rejects.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  startLocalNginx,
  type LocalNginx,
  type LocalNginxOptions,
} from '../../tools/stack/local-nginx';
import { request } from './http-client';
import { startProductionStack, stackAuth, type ProductionStack } from './production-stack';
import { waitFor } from './wait';
import { API_ENTRY, freePort, spawnNode, type SpawnedProcess } from './spawned-api';
import { backendEnv } from '../../tools/stack/backend-env';

/** Replicas behind the edge trust exactly one proxy hop. */
export const EDGE_REPLICA_ENV = { RADAR_TRUST_PROXY: '1' } as const;

/** A fresh prefix directory for one nginx (removed by `stop`). */
export function nginxPrefix(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'radar-nginx-'));
}

/** Starts nginx on a fresh prefix in front of `upstreams`; `stop` also removes the prefix. */
export async function startEdge(
  upstreams: readonly string[],
  options: Omit<LocalNginxOptions, 'upstreams' | 'prefixDir'> = {},
): Promise<LocalNginx> {
  const prefixDir = await nginxPrefix();
  try {
    const nginx = await startLocalNginx({ ...options, upstreams, prefixDir });
    return {
      ...nginx,
      async stop() {
        await nginx.stop();
        await fs.rm(prefixDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await fs.rm(prefixDir, { recursive: true, force: true });
    throw err;
  }
}

export interface EdgeStack {
  readonly stack: ProductionStack;
  readonly nginx: LocalNginx;
  /** nginx's public address. */
  readonly edgeUrl: string;
  stop(): Promise<void>;
}

/** The production stack with its in-process replicas behind nginx. */
export async function startEdgeStack(
  options: {
    replicas?: number;
    env?: Record<string, string>;
    nginx?: Omit<LocalNginxOptions, 'upstreams' | 'prefixDir'>;
  } = {},
): Promise<EdgeStack> {
  const stack = await startProductionStack({
    replicas: options.replicas ?? 2,
    env: { ...EDGE_REPLICA_ENV, ...options.env },
  });
  let nginx: LocalNginx;
  try {
    nginx = await startEdge(
      stack.replicas.map((r) => `127.0.0.1:${r.port}`),
      options.nginx,
    );
  } catch (err) {
    await stack.stop();
    throw err;
  }
  return {
    stack,
    nginx,
    edgeUrl: nginx.url,
    async stop() {
      await nginx.stop();
      await stack.stop();
    },
  };
}

export interface SpawnedReplica {
  readonly port: number;
  readonly adminPort: number;
  readonly url: string;
  readonly process: SpawnedProcess;
}

/**
 * Runs `node dist/bin/api.js` as a replica of `stack` (its Redis and bucket); resolves once it
 * serves status. `at` reuses the ports of a replica that exited (a restart behind the same
 * nginx upstream).
 */
export async function spawnReplica(
  stack: ProductionStack,
  env: Record<string, string> = {},
  at?: { readonly port: number; readonly adminPort: number },
): Promise<SpawnedReplica> {
  const [port, adminPort] = at ? [at.port, at.adminPort] : [await freePort(), await freePort()];
  const proc = spawnNode(API_ENTRY, {
    cwd: os.tmpdir(),
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      ...backendEnv(stack.redis.url, stack.s3),
      RADAR_RESYNC_S: '1',
      RADAR_RETENTION_S: String(10 * 365 * 86400),
      RADAR_DRAIN_S: '2',
      LOG_LEVEL: 'warn',
      ...EDGE_REPLICA_ENV,
      ...env,
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null)
        throw new Error(
          `replica exited (${proc.child.exitCode}):\n${proc.stderr()}\n${proc.stdout()}`,
        );
      return (
        (await edgeRequest(url, '/status.json', { headers: stackAuth() }).catch(() => undefined))
          ?.status === 200
      );
    },
    20_000,
    `spawned replica on ${port} serving status`,
    50,
  );
  return { port, adminPort, url, process: proc };
}

/** http-client's `request`, which also takes a source address, a body and an agent. */
export const edgeRequest = request;

/** Writes raw bytes on a fresh connection; resolves with everything received until the server closes it. */
export function rawExchange(
  baseUrl: string,
  bytes: string | Buffer,
  timeoutMs = 5000,
): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = new net.Socket();
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error('raw exchange timed out')));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.connect(Number(url.port), url.hostname, () => socket.write(bytes));
  });
}

/** The access log as parsed JSON lines. */
export async function accessLog(nginx: LocalNginx): Promise<Array<Record<string, unknown>>> {
  const text = await fs.readFile(nginx.accessLogFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
