/**
 * The production shape in one test process: a real Redis and a real S3 endpoint (containers
 * or local binaries, see container-runtime.ts), N API replicas and an ingest worker started
 * through `buildReplica` / `buildIngest`, as `npm start` / `npm run ingest` with a production
 * configuration. Keys live in Redis.
 */
import {
  closeRedisClient,
  createRedisClient,
  type RedisClient,
} from '../../src/adapters/redis/client';
import { loadConfig, type Config } from '../../src/config';
import { hashApiKey } from '../../src/domain/key-registry';
import { createRedisKeyAdminStore } from '../../src/adapters/redis/key-admin';
import { createSilentLogger } from '../../src/logger';
import { buildIngest, type RunningIngest } from '../../src/wiring/ingest';
import { buildReplica, type Replica } from '../../src/wiring/replica';
import { request } from './http-client';
import { startRedis, type RedisServer } from './redis-server';
import { startS3, type S3TestServer } from './s3-server';
import { waitFor } from './wait';
import { backendEnv } from '../../tools/stack/backend-env';

export const STACK_KEYS = {
  good: 'rk_stack-good-0123456789',
  ten: 'rk_stack-ten-0123456789',
} as const;
export const STACK_APP = 'stack-web';

export function stackAuth(key: string = STACK_KEYS.good): Record<string, string> {
  return { Authorization: `Bearer ${key}`, 'X-App': `Bearer ${STACK_APP}` };
}

export interface ProductionStack {
  readonly redis: RedisServer;
  readonly s3: S3TestServer;
  readonly replicas: Replica[];
  readonly ingest: RunningIngest;
  /** A command client for assertions on the Redis index. */
  readonly client: RedisClient;
  readonly baseUrls: string[];
  /** Which real servers back this run, for test names and logs. */
  readonly backends: string;
  config(extra?: Record<string, string>): Config;
  /** Adds keys of the stack's app to the Redis registry (limit: the key's own quota). */
  addKeys(keys: ReadonlyArray<{ id: string; apiKey: string; limit?: number }>): Promise<void>;
  /** Puts `{timestamp}.pmtiles` in the bucket and waits until every replica serves it (HEAD 200). */
  publish(timestamp: string, archive: Buffer): Promise<void>;
  stop(): Promise<void>;
}

export interface ProductionStackOptions {
  readonly replicas?: number;
  /** Environment of every replica and the ingest worker (names of src/config.ts). */
  readonly env?: Record<string, string>;
  /** Further environment of replica `i` only (e.g. one replica with a feature off). */
  readonly replicaEnv?: ReadonlyArray<Record<string, string>>;
}

export async function startProductionStack(
  options: ProductionStackOptions = {},
): Promise<ProductionStack> {
  const redis = await startRedis();
  const s3 = await startS3();
  const logger = createSilentLogger();
  const config = (extra: Record<string, string> = {}) =>
    loadConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      ADMIN_PORT: '0',
      ...backendEnv(redis.url, s3),
      RADAR_RESYNC_S: '1',
      RADAR_INGEST_POLL_S: '1',
      RADAR_RETENTION_S: String(10 * 365 * 86400),
      RADAR_DRAIN_S: '2',
      LOG_LEVEL: 'silent',
      ...options.env,
      ...extra,
    });

  const client = createRedisClient(redis.url, { role: 'test', logger, commandTimeoutMs: 2000 });
  await createRedisKeyAdminStore(client).update(() => ({
    apps: [{ id: STACK_APP, disabled: false }],
    keys: [
      { id: 'good', sha256: hashApiKey(STACK_KEYS.good), apps: [STACK_APP], disabled: false },
      {
        id: 'ten',
        sha256: hashApiKey(STACK_KEYS.ten),
        apps: [STACK_APP],
        limit: 10,
        disabled: false,
      },
    ],
  }));

  const replicas: Replica[] = [];
  for (let i = 0; i < (options.replicas ?? 2); i++)
    replicas.push(await buildReplica(config(options.replicaEnv?.[i]), { logger }));
  const ingest = await buildIngest(config(), { logger });
  return {
    redis,
    s3,
    replicas,
    ingest,
    client,
    baseUrls: replicas.map((r) => `http://127.0.0.1:${r.port}`),
    backends: `redis=${redis.backend}, s3=${s3.backend}`,
    config,
    async addKeys(keys) {
      await createRedisKeyAdminStore(client).update((data) => ({
        ...data,
        keys: [
          ...data.keys,
          ...keys.map(({ id, apiKey, limit }) => ({
            id,
            sha256: hashApiKey(apiKey),
            apps: [STACK_APP],
            ...(limit === undefined ? {} : { limit }),
            disabled: false,
          })),
        ],
      }));
    },
    async publish(timestamp, archive) {
      await s3.put(`${timestamp}.pmtiles`, archive);
      for (const url of replicas.map((r) => `http://127.0.0.1:${r.port}`))
        await waitFor(
          async () =>
            (
              await request(url, `/tiles/${timestamp}.pmtiles`, {
                method: 'HEAD',
                headers: stackAuth(),
              })
            ).status === 200,
          20_000,
          `${timestamp} listed on ${url}`,
          100,
        );
    },
    async stop() {
      await ingest.shutdown();
      for (const replica of replicas) await replica.shutdown();
      await closeRedisClient(client);
      await s3.stop();
      await redis.stop();
    },
  };
}
