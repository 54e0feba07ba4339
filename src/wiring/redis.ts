/**
 * Redis wiring: one command connection per process, a pub/sub connection opened only when a
 * component subscribes (the ingest worker never does), and the Redis implementations of the
 * catalog, key, limiter and lease ports over them. The connections close last.
 */
import {
  createRedisCatalog,
  type RedisCatalog,
  type RedisCatalogOptions,
} from '../adapters/redis/catalog';
import { createRedisCatalogIndex } from '../adapters/redis/catalog-index';
import {
  createRedisForecastCatalog,
  type RedisForecastCatalog,
} from '../adapters/redis/forecast-catalog';
import {
  closeRedisClient,
  createRedisClient,
  createRedisSubscriber,
  type RedisClient,
} from '../adapters/redis/client';
import { INGEST_LEADER_KEY } from '../adapters/redis/keys';
import { createRedisLeaderLease } from '../adapters/redis/leader-lease';
import { createRedisRateLimiter, type RedisRateLimiter } from '../adapters/redis/rate-limiter';
import {
  createSharedStoreHealth,
  type SharedStoreHealth,
} from '../adapters/redis/shared-store-health';
import type { CatalogBackend, RateSettings, RedisBackend } from '../config';
import type { CatalogWriter } from '../domain/ports';
import type { LeaderLease } from '../domain/ports';
import type { Logger } from '../logger';
import { closer, type Component } from './component';

/** The connections of one process to one Redis deployment. */
export interface RedisWiring {
  readonly client: RedisClient;
  /** The command timeout the connection was opened with (`RADAR_REDIS_TIMEOUT_MS`). */
  readonly timeoutMs: number;
  /** The shared pub/sub connection, opened on first use. */
  subscriber(): RedisClient;
  /** Closes both connections; stop it after every component that uses them. */
  readonly connections: Component;
}

export function connectRedis(backend: RedisBackend, logger: Logger, role: string): RedisWiring {
  const { url, timeoutMs } = backend;
  const client = createRedisClient(url, { role, logger, commandTimeoutMs: timeoutMs });
  let subscriber: RedisClient | undefined;
  return {
    client,
    timeoutMs,
    subscriber: () => (subscriber ??= createRedisSubscriber(url, { role: `${role}-sub`, logger })),
    connections: closer('redis', async () => {
      if (subscriber) await closeRedisClient(subscriber);
      await closeRedisClient(client);
    }),
  };
}

/** A replica's catalog: snapshot in memory, kept current by events and periodic resyncs. */
export function redisCatalog(
  redis: RedisWiring,
  backend: Extract<CatalogBackend, { kind: 'redis' }>,
  logger: Logger,
  onDropped?: RedisCatalogOptions['onDropped'],
): { readonly catalog: RedisCatalog; readonly component: Component } {
  const catalog = createRedisCatalog({
    client: redis.client,
    subscriber: redis.subscriber(),
    logger: logger.child({ component: 'catalog' }),
    resyncMs: backend.resyncS * 1000,
    onDropped,
    lookupTimeoutMs: redis.timeoutMs,
  });
  return {
    catalog,
    component: { name: 'catalog', start: () => catalog.start(), stop: () => catalog.stop() },
  };
}

/** A replica's forecast view: the manifest, re-read on each announcement and every resync. */
export function redisForecasts(
  redis: RedisWiring,
  backend: Extract<CatalogBackend, { kind: 'redis' }>,
  logger: Logger,
): { readonly catalog: RedisForecastCatalog; readonly component: Component } {
  const catalog = createRedisForecastCatalog({
    client: redis.client,
    subscriber: redis.subscriber(),
    logger: logger.child({ component: 'forecasts' }),
    resyncMs: backend.resyncS * 1000,
  });
  return {
    catalog,
    component: { name: 'forecasts', start: () => catalog.start(), stop: () => catalog.stop() },
  };
}

/** The ingest worker's catalog: writes straight to the index, no snapshot, no subscription. */
export function redisCatalogWriter(redis: RedisWiring): CatalogWriter {
  return createRedisCatalogIndex(redis.client);
}

export function redisRateLimiter(
  redis: RedisWiring,
  rate: RateSettings,
  logger: Logger,
): RedisRateLimiter {
  return createRedisRateLimiter({
    client: redis.client,
    windowS: rate.windowS,
    commandTimeoutMs: redis.timeoutMs,
    logger: logger.child({ component: 'limiter' }),
  });
}

/**
 * How long a crashed leader keeps a leader lease (the ingest workers', the MRMS producers');
 * holders renew it every third of this, so two missed renewals still keep it.
 */
export const LEADER_LEASE_TTL_MS = 15_000;

/**
 * A leader lease (the ingest workers', or another group's under its own `key`); a crashed
 * leader is replaced within `ttlMs`.
 */
export function redisLeaderLease(
  redis: RedisWiring,
  owner: string,
  ttlMs: number,
  key: string = INGEST_LEADER_KEY,
): LeaderLease {
  return createRedisLeaderLease({ client: redis.client, key, owner, ttlMs });
}

/**
 * The store's reachability shared by every replica (with hysteresis), subscribed on the shared
 * pub/sub connection; its component subscribes at start and unsubscribes at stop.
 */
export function sharedStoreHealth(
  redis: RedisWiring,
  logger: Logger,
  options: { readonly local: () => boolean; readonly ttlMs: number },
): { readonly health: SharedStoreHealth; readonly component: Component } {
  const health = createSharedStoreHealth({
    client: redis.client,
    subscriber: redis.subscriber(),
    logger,
    ...options,
  });
  return {
    health,
    component: {
      name: 'shared-store-health',
      start: () => health.start(),
      stop: () => health.stop(),
    },
  };
}
