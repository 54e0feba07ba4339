/**
 * The service under test, in its production shape on loopback: a local `redis-server`, the
 * S3 endpoint (s3rver, own process), the ingest worker (`node dist/bin/ingest.js`) and API
 * replicas (`node dist/bin/api.js`), keys in Redis with a bench key whose limit is 10^9 per
 * window, so the shared rate limiter is consulted on every request but never refuses.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import {
  closeRedisClient,
  createRedisClient,
  type RedisClient,
  waitForRedisReady,
} from '../../src/adapters/redis/client';
import { createRedisCatalogIndex } from '../../src/adapters/redis/catalog-index';
import { createS3Client } from '../../src/adapters/s3/client';
import { createS3FrameSink } from '../../src/adapters/s3/frame-sink';
import { hashApiKey } from '../../src/domain/key-registry';
import type { ArchiveMeta } from '../../src/domain/ports';
import { createRedisKeyAdminStore } from '../../src/adapters/redis/key-admin';
import { createLogger } from '../../src/logger';
import { freePort } from '../stack/free-port';
import { startLocalRedis, type LocalRedis } from '../stack/local-redis';
import type { Frame } from './archives';
import { httpGet, startNode, startTsServer, waitUntil, type BenchProcess } from './processes';
import { backendEnv } from '../stack/backend-env';

export const BENCH_APP = 'bench-web';
export const BENCH_KEY = 'rk_bench-0123456789abcdef0123456789';
/** Per-key limit of the bench key: never reached, always counted. */
export const BENCH_LIMIT = 1_000_000_000;
/** Retention long enough for the 10,000-timestamp catalog (2-minute cadence: ~14 days). */
export const BENCH_RETENTION_S = 30 * 86_400;

/** A second key at the default limit (1,200 per 60 s): Redis commands per allowed request. */
export const DEFAULT_LIMIT_KEY = 'rk_bench-default-0123456789abcdef01';
export const DEFAULT_LIMIT = 1200;
export const DEFAULT_LIMIT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  authorization: `Bearer ${DEFAULT_LIMIT_KEY}`,
  'x-app': `Bearer bench-web`,
});

export const AUTH_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  authorization: `Bearer ${BENCH_KEY}`,
  'x-app': `Bearer ${BENCH_APP}`,
});

const DIST = path.resolve(__dirname, '../../dist/bin');

export interface S3Info {
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly bucket: string;
}

export interface Replica {
  readonly proc: BenchProcess;
  readonly port: number;
  readonly adminPort: number;
  readonly url: string;
}

const quiet = createLogger('silent');

export function redisClient(url: string): RedisClient {
  return createRedisClient(url, { role: 'bench', logger: quiet, commandTimeoutMs: 10_000 });
}

/** Starts `redis-server` and stores the bench app and key in it. */
export async function startRedisWithKeys(): Promise<LocalRedis> {
  const redis = await startLocalRedis();
  const client = redisClient(redis.url);
  try {
    await createRedisKeyAdminStore(client).update(() => ({
      apps: [{ id: BENCH_APP, disabled: false }],
      keys: [
        {
          id: 'bench',
          sha256: hashApiKey(BENCH_KEY),
          apps: [BENCH_APP],
          limit: BENCH_LIMIT,
          disabled: false,
        },
        {
          id: 'bench-default',
          sha256: hashApiKey(DEFAULT_LIMIT_KEY),
          apps: [BENCH_APP],
          limit: DEFAULT_LIMIT,
          disabled: false,
        },
      ],
    }));
  } finally {
    await closeRedisClient(client);
  }
  return redis;
}

export async function startS3(
  dir: string,
  logDir: string,
): Promise<{ proc: BenchProcess; s3: S3Info }> {
  const { proc, info } = await startTsServer<S3Info>(
    's3rver',
    path.join(__dirname, 'servers/s3-server.ts'),
    [dir, 'radar'],
    logDir,
  );
  return { proc, s3: info };
}

/** Uploads archives the way producers do (one PUT each); resolves per upload completion. */
export function createUploader(s3: S3Info): {
  put(timestamp: string, bytes: Buffer): Promise<void>;
  close(): void;
} {
  const client = createS3Client(
    {
      endpoint: s3.endpoint,
      accessKey: s3.accessKey,
      secretKey: s3.secretKey,
      region: 'us-east-1',
    },
    { timeoutMs: 10_000 },
  );
  const sink = createS3FrameSink({ client, bucket: s3.bucket, prefix: '' });
  return { put: (timestamp, bytes) => sink.put(timestamp, bytes), close: () => client.close() };
}

export async function uploadFrames(s3: S3Info, frames: readonly Frame[]): Promise<void> {
  const uploader = createUploader(s3);
  try {
    for (const frame of frames) await uploader.put(frame.timestamp, frame.bytes);
  } finally {
    uploader.close();
  }
}

/** The production configuration every bench process shares: Redis, the archive bucket. */
export function productionEnv(redisUrl: string, s3: S3Info): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    ...backendEnv(redisUrl, s3),
    RADAR_SIMULATE: '0',
    RADAR_RETENTION_S: String(BENCH_RETENTION_S),
    RADAR_DRAIN_S: '1',
    LOG_LEVEL: 'warn',
  };
}

export async function startIngest(
  redisUrl: string,
  s3: S3Info,
  logDir: string,
  env: Record<string, string> = {},
): Promise<BenchProcess> {
  const adminPort = await freePort();
  const proc = startNode(
    'ingest',
    path.join(DIST, 'ingest.js'),
    { ...productionEnv(redisUrl, s3), ADMIN_PORT: String(adminPort), ...env },
    logDir,
  );
  await waitUntil(
    'ingest /readyz',
    async () => (await httpGet(`http://127.0.0.1:${adminPort}/readyz`)).status === 200,
    { proc },
  );
  return proc;
}

/**
 * Starts `node dist/bin/api.js` and waits until it is ready and its status lists
 * `expectTimestamps` timestamps.
 */
export async function startReplica(
  name: string,
  options: {
    redisUrl: string;
    s3: S3Info;
    logDir: string;
    env?: Record<string, string>;
    expectTimestamps: number;
    nodeArgs?: readonly string[];
  },
): Promise<Replica> {
  const port = await freePort();
  const adminPort = await freePort();
  const proc = startNode(
    name,
    // RADAR_BENCH_API_DIST: replicas from another build (the "before" profile of an older commit).
    path.join(process.env.RADAR_BENCH_API_DIST ?? DIST, 'api.js'),
    {
      ...productionEnv(options.redisUrl, options.s3),
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      RADAR_TRUST_PROXY: '1',
      ...options.env,
    },
    options.logDir,
    options.nodeArgs,
  );
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(
    `${name} ready with ${options.expectTimestamps} timestamps`,
    async () => {
      if ((await httpGet(`http://127.0.0.1:${adminPort}/readyz`)).status !== 200) return false;
      const status = await httpGet(`${url}/status.json`, { ...AUTH_HEADERS });
      if (status.status !== 200) return false;
      return (
        (JSON.parse(status.body.toString()) as { timestamps: string[] }).timestamps.length ===
        options.expectTimestamps
      );
    },
    { proc, timeoutMs: 60_000, intervalMs: 100 },
  );
  return { proc, port, adminPort, url };
}

/** Waits until the ingest worker has published `count` timestamps into Redis. */
export async function waitForPublished(
  redisUrl: string,
  count: number,
  ingest: BenchProcess,
): Promise<ArchiveMeta[]> {
  const client = redisClient(redisUrl);
  try {
    await waitForRedisReady(client, 10_000);
    const index = createRedisCatalogIndex(client);
    await waitUntil(
      `${count} archives published`,
      async () => (await index.list()).length >= count,
      {
        proc: ingest,
        timeoutMs: 60_000,
        intervalMs: 100,
      },
    );
    return await index.entries();
  } finally {
    await closeRedisClient(client);
  }
}

/**
 * Fills a catalog index with `total` timestamps: the real `metas` (the newest, backed by
 * objects) plus older timestamps `olderTimestamps` whose metadata copies the oldest real
 * archive's. Those are never read (only status lists them), so no object backs them.
 */
export async function populateCatalog(
  redisUrl: string,
  metas: readonly ArchiveMeta[],
  olderTimestamps: readonly string[],
): Promise<void> {
  const client = redisClient(redisUrl);
  try {
    await waitForRedisReady(client, 10_000);
    const index = createRedisCatalogIndex(client);
    const template = metas.at(-1)!;
    const all = [...metas, ...olderTimestamps.map((timestamp) => ({ ...template, timestamp }))];
    for (let i = 0; i < all.length; i += 500) {
      await Promise.all(all.slice(i, i + 500).map((meta) => index.publish(meta)));
    }
  } finally {
    await closeRedisClient(client);
  }
}

/** Redis with the bench keys, s3rver holding `frames`, and an ingest worker that published them. */
export interface PublishedBackend {
  readonly redis: LocalRedis;
  readonly s3server: { readonly s3: S3Info; readonly proc: BenchProcess };
  readonly ingest: BenchProcess;
  readonly metas: ArchiveMeta[];
}

/**
 * Starts the backends of a one-replica measurement (idle CPU, pipeline cost) under `runDir`,
 * pushing each stop onto `stops` so a failure half-way still cleans up.
 */
export async function startPublishedBackend(
  runDir: string,
  logDir: string,
  frames: readonly Frame[],
  stops: Array<() => Promise<void>>,
): Promise<PublishedBackend> {
  const redis = await startRedisWithKeys();
  stops.push(() => redis.stop());
  await fsp.mkdir(path.join(runDir, 's3'));
  const s3server = await startS3(path.join(runDir, 's3'), logDir);
  stops.push(() => s3server.proc.stop());
  await uploadFrames(s3server.s3, frames);
  const ingest = await startIngest(redis.url, s3server.s3, logDir);
  stops.push(() => ingest.stop());
  const metas = await waitForPublished(redis.url, frames.length, ingest);
  return { redis, s3server, ingest, metas };
}
