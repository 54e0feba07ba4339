/**
 * The stack the fault-matrix tests (`test/stack/fault-*.test.ts`) break on purpose: the production stack's
 * Redis, S3 endpoint and in-process ingest worker (production-stack.ts), published frames near
 * the current time (so `healthy` starts true), two replicas as real processes
 * (`node dist/bin/api.js`, so SIGTERM and SIGKILL are real signals) with short periods, and the
 * shipped nginx in front of them. Optionally the replicas reach the bucket through
 * `startFaultProxy` (pass / hang / refuse). Keys live in Redis, as in production.
 *
 * Also here: spawning ingest workers (`node dist/bin/ingest.js`), reading the replicas' and
 * workers' admin endpoints (`/metrics`, `/readyz`), and writing each scenario's one-line result.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LocalNginx } from '../../tools/stack/local-nginx';
import { TIMESTAMPS_KEY } from '../../src/adapters/redis/keys';
import { buildArchive } from '../fixtures/archives';
import { edgeRequest, spawnReplica, startEdge, type SpawnedReplica } from './edge-stack';
import type { RawResponse } from './http-client';
import type { StatusBody } from './map-client-load';
import { startProductionStack, STACK_APP, type ProductionStack } from './production-stack';
import { waitFor } from './wait';
import { startFaultProxy, type FaultProxy } from './s3-server';
import { freePort, spawnNode, type SpawnedProcess } from './spawned-api';
import { recentTimestamps } from './timestamps';
import { backendEnv } from '../../tools/stack/backend-env';

export const INGEST_ENTRY = path.resolve(__dirname, '../../dist/bin/ingest.js');

/** Keys of the fault stack (all bound to `STACK_APP`). */
export const FAULT_KEYS = {
  /** The load's key: a limit no test run reaches, so 429 never hides a fault. */
  load: 'rk_fault-load-0123456789',
  /** Limit 10, for per-replica (insurance) counting checks. */
  limitedA: 'rk_fault-lim-a-0123456789',
  /** Limit 10, for shared counting checks. */
  limitedB: 'rk_fault-lim-b-0123456789',
  limitedC: 'rk_fault-lim-c-0123456789',
} as const;
export const FAULT_KEY_LIMIT = 10;

export function faultAuth(key: string = FAULT_KEYS.load): Record<string, string> {
  return { Authorization: `Bearer ${key}`, 'X-App': `Bearer ${STACK_APP}` };
}

/** Replica settings of every fault test: short periods, explicit timeouts (README names). */
export const FAULT_REPLICA_ENV: Readonly<Record<string, string>> = {
  RADAR_REDIS_TIMEOUT_MS: '500',
  RADAR_S3_TIMEOUT_MS: '1000',
  RADAR_RESYNC_S: '1',
  RADAR_INGEST_POLL_S: '1',
  RADAR_DRAIN_S: '2',
};

export interface FaultStackOptions {
  /** Extra replica environment (over `FAULT_REPLICA_ENV`). */
  readonly replicaEnv?: Record<string, string>;
  /** Replicas reach the bucket through a fault proxy (ingest keeps the direct endpoint). */
  readonly storeProxy?: boolean;
  /** Keep the in-process ingest worker running (default) or stop it after seeding. */
  readonly ingest?: 'in-process' | 'none';
  /** Frames published before the replicas start, newest at the current even minute (default 6). */
  readonly frames?: number;
  /** Cadence steps between the current even minute and the newest seeded frame (default 0). */
  readonly framesOffset?: number;
  /**
   * Each replica reaches Redis through its own fault proxy (`redisProxies`), so one replica can
   * lose Redis while the other replica and ingest keep it.
   */
  readonly redisProxy?: boolean;
  /** Zoom depth of the seeded archives (default 4: about 240 KB each). */
  readonly maxZoom?: number;
}

export interface FaultStack {
  readonly stack: ProductionStack;
  readonly replicas: SpawnedReplica[];
  readonly nginx: LocalNginx;
  /** Present with `storeProxy`. */
  readonly proxy: FaultProxy | undefined;
  /** With `redisProxy`: replica i's proxy to Redis. */
  readonly redisProxies: FaultProxy[];
  /** Seeded timestamps, newest first. */
  readonly frames: string[];
  stop(): Promise<void>;
}

/** Uploads archives for `timestamps` to the stack's bucket. */
export async function uploadFrames(
  stack: ProductionStack,
  timestamps: readonly string[],
  maxZoom = 4,
): Promise<void> {
  for (const ts of timestamps) await stack.s3.put(`${ts}.pmtiles`, buildArchive(ts, maxZoom));
}

/** Timestamps in the Redis index (newest first). */
export function indexedTimestamps(stack: ProductionStack): Promise<string[]> {
  return stack.client.zrevrange(TIMESTAMPS_KEY, 0, -1);
}

export async function startFaultStack(options: FaultStackOptions = {}): Promise<FaultStack> {
  const stack = await startProductionStack({ replicas: 0 });
  const cleanup: Array<() => Promise<void>> = [() => stack.stop()];
  const unwind = async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  };
  try {
    await stack.addKeys([
      { id: 'fault-load', apiKey: FAULT_KEYS.load, limit: 10_000_000 },
      ...(['limitedA', 'limitedB', 'limitedC'] as const).map((k) => ({
        id: `fault-${k}`,
        apiKey: FAULT_KEYS[k],
        limit: FAULT_KEY_LIMIT,
      })),
    ]);
    const frames = recentTimestamps(options.frames ?? 6, options.framesOffset ?? 0);
    await uploadFrames(stack, frames, options.maxZoom);
    await waitFor(
      async () => (await indexedTimestamps(stack)).length >= frames.length,
      15_000,
      'seeded frames published',
      50,
    );
    if (options.ingest === 'none') await stack.ingest.shutdown();

    let proxy: FaultProxy | undefined;
    if (options.storeProxy) {
      proxy = await startFaultProxy(stack.s3.endpoint);
      const p = proxy;
      cleanup.push(() => p.stop());
    }
    const env = {
      ...FAULT_REPLICA_ENV,
      ...(proxy ? { S3_ENDPOINT: proxy.endpoint } : {}),
      ...options.replicaEnv,
    };
    const replicas: SpawnedReplica[] = [];
    cleanup.push(async () => {
      for (const r of replicas) await r.process.stop('SIGKILL');
    });
    const redisProxies: FaultProxy[] = [];
    cleanup.push(async () => {
      for (const p of redisProxies) await p.stop();
    });
    // One at a time: two Node starts at once on two loaded cores only slow each other down.
    for (let i = 0; i < 2; i++) {
      let replicaEnv: Record<string, string> = env;
      if (options.redisProxy) {
        const redisProxy = await startFaultProxy(stack.redis.url.replace(/^redis:/, 'http:'));
        redisProxies.push(redisProxy);
        replicaEnv = { ...env, REDIS_URL: redisProxy.endpoint.replace(/^http:/, 'redis:') };
      }
      replicas.push(await spawnReplica(stack, replicaEnv));
    }
    const nginx = await startEdge(replicas.map((r) => `127.0.0.1:${r.port}`));
    cleanup.push(() => nginx.stop());
    console.info(
      `[fault stack] ${stack.backends}; replicas ${replicas.map((r) => `${r.port}/${r.adminPort}`).join(', ')}; ` +
        `nginx ${nginx.url}${proxy ? `; store via fault proxy ${proxy.endpoint}` : ''}`,
    );
    return { stack, replicas, nginx, proxy, redisProxies, frames, stop: unwind };
  } catch (err) {
    await unwind();
    throw err;
  }
}

/** A spawned ingest worker and its admin port. */
export interface SpawnedIngest {
  readonly adminPort: number;
  readonly process: SpawnedProcess;
  /** Its lease owner id (from its start log line). */
  readonly owner: string;
}

/** Runs `node dist/bin/ingest.js` against the stack's Redis and bucket; resolves once it runs. */
export async function spawnIngest(
  stack: ProductionStack,
  env: Record<string, string> = {},
): Promise<SpawnedIngest> {
  const adminPort = await freePort();
  const proc = spawnNode(INGEST_ENTRY, {
    cwd: os.tmpdir(),
    env: {
      HOST: '127.0.0.1',
      ADMIN_PORT: String(adminPort),
      ...backendEnv(stack.redis.url, stack.s3),
      RADAR_RESYNC_S: '1',
      RADAR_INGEST_POLL_S: '1',
      RADAR_RETENTION_S: String(10 * 365 * 86400),
      // info: the start line carries the lease owner id.
      LOG_LEVEL: 'info',
      ...env,
    },
  });
  const match = await proc.waitFor(/"owner":"([^"]+)"[^\n]*"msg":"ingest worker running"/, 20_000);
  return { adminPort, process: proc, owner: match[1]! };
}

/** The Prometheus text of an admin listener. */
export async function scrape(adminPort: number): Promise<string> {
  const res = await edgeRequest(`http://127.0.0.1:${adminPort}`, '/metrics', { timeoutMs: 3000 });
  if (res.status !== 200) throw new Error(`/metrics on ${adminPort} answered ${res.status}`);
  return res.body.toString('utf8');
}

/**
 * The value of one sample in Prometheus text (`labels` must match exactly those given, in any
 * order); undefined when absent.
 */
export function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const found = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]),
    );
    if (
      Object.entries(labels).every(([k, v]) => found[k] === v) &&
      Object.keys(found).length === Object.keys(labels).length
    )
      return Number(m[3]);
  }
  return undefined;
}

/** One gauge or counter of an admin listener (0 when the sample is absent). */
export async function metric(
  adminPort: number,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  return sample(await scrape(adminPort), name, labels) ?? 0;
}

/** `/readyz` status code, or 0 when the admin listener does not answer. */
export async function readyz(adminPort: number): Promise<number> {
  const res = await edgeRequest(`http://127.0.0.1:${adminPort}`, '/readyz', {
    timeoutMs: 2000,
  }).catch(() => undefined);
  return res?.status ?? 0;
}

/** `/status.json` straight from one replica (bypassing nginx). */
export async function replicaStatus(
  replica: SpawnedReplica,
  headers: Record<string, string> = faultAuth(),
): Promise<{ res: RawResponse; body: StatusBody | undefined }> {
  const res = await edgeRequest(replica.url, '/status.json', { headers, timeoutMs: 5000 });
  return { res, body: res.status === 200 ? res.json<StatusBody>() : undefined };
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const RESULTS_DIR = path.resolve(__dirname, '../stack/results');

/** Formats JSON as `prettier --check .` expects (the CLI in a child: its API needs ESM loading). */
function prettierJson(text: string, file: string): Promise<string> {
  const bin = path.join(path.dirname(require.resolve('prettier/package.json')), 'bin/prettier.cjs');
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [bin, '--stdin-filepath', file], (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
    child.stdin!.end(text);
  });
}

/**
 * Reports a scenario: one JSON line on the console (`[fault] {...}`) and the same object in
 * `test/stack/results/<name>.json` (gitignored; formatted so `prettier --check .` passes; the
 * README's reliability table is copied from a run's files).
 */
export async function reportFault(name: string, record: Record<string, unknown>): Promise<void> {
  const line = JSON.stringify({ scenario: name, at: new Date().toISOString(), ...record });
  console.info(`[fault] ${line}`);
  const file = path.join(RESULTS_DIR, `${name}.json`);
  const text = await prettierJson(line, file).catch(
    () => `${JSON.stringify(JSON.parse(line), null, 2)}\n`,
  );
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.writeFileSync(file, text);
}
