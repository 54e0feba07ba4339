/**
 * The one place usage stores are opened, both following `config.usage.store`: a replica
 * counts into its meter and flushes to the store on its shared Redis connection (or the file),
 * and `npm run keys -- usage` reads the same store on a connection of its own. Reports for the
 * CLI and the admin listener are built here from the store and the key registry.
 */
import { createFileUsageStore } from '../adapters/fs/usage-file';

export { UsageFileError } from '../adapters/fs/usage-file';
import { closeRedisClient, createRedisClient, waitForRedisReady } from '../adapters/redis/client';
import { createRedisUsageStore } from '../adapters/redis/usage-store';
import type { RedisBackend, UsageSettings } from '../config';
import type { KeyRegistryData } from '../domain/key-records';
import type { UsageStore } from '../domain/usage-ports';
import { hourOf } from '../domain/usage';
import {
  buildUsageReport,
  reportHours,
  scopedKeys,
  type UsageQuestion,
  type UsageReport,
} from '../domain/usage-report';
import { createLogger, type Logger } from '../logger';
import { createUsageMetrics } from '../observability/usage-metrics';
import { createUsageFlusher, type UsageFlusher } from '../serving/usage-flusher';
import { createUsageMeter, type UsageCounter } from '../serving/usage-meter';
import { createTrustedClock, type TrustedClock } from '../serving/trusted-clock';
import type { Registry } from 'prom-client';
import type { Component } from './component';
import type { RedisWiring } from './redis';

/** A replica's usage parts. */
export interface ReplicaUsage {
  /** What the request recorder counts into; undefined when usage is off (`RADAR_USAGE=0`). */
  readonly counter: UsageCounter | undefined;
  /** The store the admin listener's `/usage` reads. */
  readonly store: UsageStore;
  /** The flusher (started with the replica, stopped after the drain), when counting. */
  readonly flusher: UsageFlusher | undefined;
  readonly components: readonly Component[];
}

/** The usage store of `settings` (Redis through `redis`, which opens the shared connections). */
export function openUsageStore(
  settings: UsageSettings,
  logger: Logger,
  redis: (backend: RedisBackend) => RedisWiring,
): UsageStore {
  const { store } = settings;
  const log = logger.child({ component: 'usage' });
  return store.kind === 'file'
    ? createFileUsageStore({ file: store.path, retentionDays: settings.retentionDays, logger: log })
    : createRedisUsageStore({
        client: redis(store).client,
        retentionDays: settings.retentionDays,
        logger: log,
      });
}

/** The meter, flusher and metrics of a replica; the store is opened either way (`/usage`). */
export function replicaUsage(
  settings: UsageSettings,
  logger: Logger,
  registry: Registry,
  redis: (backend: RedisBackend) => RedisWiring,
  overrides: { readonly flushMs?: number } = {},
): ReplicaUsage {
  const store = openUsageStore(settings, logger, redis);
  if (!settings.enabled) return { counter: undefined, store, flusher: undefined, components: [] };
  const clock = storeClock(settings, logger, redis);
  const meter = createUsageMeter({
    maxEntries: settings.maxEntries,
    ...(clock ? { now: clock.now } : {}),
  });
  const events = createUsageMetrics(registry, {
    // Read at scrape time, once the flusher below exists.
    held: () => meter.size() + flusher.pendingEntries(),
    store,
    readTimeoutMs: settings.store.kind === 'redis' ? settings.store.timeoutMs : 1000,
  });
  const flusher = createUsageFlusher({
    meter,
    store,
    intervalMs: overrides.flushMs ?? settings.flushS * 1000,
    logger: logger.child({ component: 'usage' }),
    events,
  });
  return {
    counter: meter,
    store,
    flusher,
    components: [
      ...(clock
        ? [{ name: 'usage-clock', start: () => clock.start(), stop: async () => clock.stop() }]
        : []),
      { name: 'usage-flusher', start: async () => flusher.start(), stop: () => flusher.stop() },
    ],
  };
}

/** How far a replica's clock may differ from Redis's before usage is counted by Redis time. */
export const MAX_USAGE_CLOCK_SKEW_MS = 60_000;

/**
 * With Redis as the store, the clock usage is counted by: the replica's own within
 * {@link MAX_USAGE_CLOCK_SKEW_MS} of Redis `TIME`, else Redis's (`serving/trusted-clock.ts`).
 * A usage file has one writer and no other clock to compare with.
 */
function storeClock(
  settings: UsageSettings,
  logger: Logger,
  redis: (backend: RedisBackend) => RedisWiring,
): TrustedClock | undefined {
  if (settings.store.kind !== 'redis') return undefined;
  const { client } = redis(settings.store);
  return createTrustedClock({
    storeTime: async () => {
      const [seconds, micros] = await client.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    },
    maxSkewMs: MAX_USAGE_CLOCK_SKEW_MS,
    refreshMs: 60_000,
    logger: logger.child({ component: 'usage' }),
  });
}

/** Reads the store and builds the report the CLI and `/usage` give for `question`. */
export async function usageReport(
  store: UsageStore,
  registry: KeyRegistryData,
  rate: { readonly windowS: number; readonly limit: number },
  question: UsageQuestion,
  nowMs: number = Date.now(),
): Promise<UsageReport> {
  const scope = {
    ...reportHours(question.hours, hourOf(nowMs)),
    windowS: rate.windowS,
    defaultLimit: rate.limit,
    ...(question.key !== undefined ? { key: question.key } : {}),
    ...(question.app !== undefined ? { app: question.app } : {}),
  };
  const wanted = scopedKeys(scope, registry);
  const entries = await store.read(scope.fromHour, scope.toHour, wanted);
  return buildUsageReport(entries, registry, scope, wanted);
}

/** For `npm run keys -- usage`: the configured store on a connection of its own. */
export async function openUsageReader(
  settings: UsageSettings,
): Promise<{ readonly store: UsageStore; close(): Promise<void> }> {
  const logger = createLogger('warn');
  if (settings.store.kind === 'file')
    return { store: openUsageStore(settings, logger, unreachable), close: async () => {} };
  const client = createRedisClient(settings.store.url, {
    role: 'usage',
    logger,
    commandTimeoutMs: Math.max(settings.store.timeoutMs, 5000),
  });
  await waitForRedisReady(client, 5000).catch(async (err: unknown) => {
    await closeRedisClient(client);
    throw err;
  });
  const store = createRedisUsageStore({
    client,
    retentionDays: settings.retentionDays,
    logger,
  });
  return { store, close: () => closeRedisClient(client) };
}

function unreachable(): never {
  throw new Error('a file usage store opens no Redis connection');
}
