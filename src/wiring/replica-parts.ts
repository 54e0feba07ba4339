/**
 * The parts of one API replica, chosen by the configuration's tagged unions: each port comes
 * from the wiring of its technology (`fs.ts`, `s3.ts`, `redis.ts`, memory adapters), and the
 * archive store is wrapped the one way every replica ships it: gated, measured, then cached.
 */
import { createCachingArchiveStore, type CachingArchiveStore } from '../serving/block-cache';
import { createArchiveWarmer } from '../serving/archive-warmer';
import { createRetainedCatalog } from '../serving/retained-catalog';
import { createReadGate } from '../serving/read-gate';
import { createMemoryCatalog } from '../adapters/memory/catalog';
import { createMemoryForecastCatalog } from '../adapters/memory/forecast-catalog';
import type { ForecastCatalogReader } from '../domain/forecast-catalog';
import { createMemoryRateLimiter } from '../adapters/memory/rate-limiter';
import { createMemoryRevalidationQueue } from '../adapters/memory/revalidation-queue';
import { createRedisRevalidationQueue } from '../adapters/redis/revalidation-queue';
import { createStoreProbe, STORE_PROBE_INTERVAL_MS, type StoreProbe } from '../serving/store-probe';
import type { Config, RedisBackend } from '../config';
import { createHealthCheck } from '../domain/health';
import type { ArchiveFormatReason } from '../domain/archive-errors';
import type { ArchiveMeta, CatalogReader, RateLimiter, RevalidationQueue } from '../domain/ports';
import type { KeyStore } from '../domain/key-ports';
import { createStatusDocumentSource, type StatusDocument } from '../domain/status-document';
import { ensureDemoCredentials, type DemoCredentials } from '../embedded/demo-credentials';
import { instrumentArchiveStore } from '../observability/archive-store-metrics';
import type { Logger } from '../logger';
import { replicaGauges } from '../observability/replica-gauges';
import { createCacheMetrics } from '../observability/cache-metrics';
import { createCatalogMetrics } from '../observability/catalog-metrics';
import type { IngestMetrics } from '../observability/ingest-metrics';
import type { Registry } from 'prom-client';
import { archiveFormatReports } from '../observability/archive-format-reports';
import { catalogGauges } from '../observability/catalog-gauges';
import { forecastGauges } from '../observability/forecast-gauges';
import type { ArchivesWiring } from './archives';
import { openArchives } from './open-archives';
import { closer, type Component } from './component';
import { directoryIngest } from './fs';
import { ingestCycle, soleIngestLoop } from './ingest-parts';
import { keyRegistryReader, openKeyStore } from './keys';
import { replicaUsage, type ReplicaUsage } from './usage';
import type { KeyRegistryData } from '../domain/key-records';
import type { ReplicaOverrides } from './overrides';
import {
  connectRedis,
  redisCatalog,
  redisForecasts,
  redisRateLimiter,
  sharedStoreHealth,
  type RedisWiring,
} from './redis';
import { backgroundMrms, localFileVerdicts } from './mrms';
import { backgroundSimulator } from './simulator';
import { ALWAYS_ANSWERED, createSourceWatch } from './source-watch';

export interface ReplicaParts {
  readonly catalog: CatalogReader;
  /** The forecast frames readable now and the listed base. */
  readonly forecasts: ForecastCatalogReader;
  readonly store: CachingArchiveStore;
  readonly keys: KeyStore;
  readonly limiter: RateLimiter;
  readonly probe: StoreProbe;
  readonly healthy: () => boolean;
  /** Whether the in-process radar source has answered once (always true without one). */
  readonly sourceAnswered: () => boolean;
  readonly statusDocument: () => StatusDocument | undefined;
  /** Present in embedded mode when the demo key file is in use. */
  readonly demo: DemoCredentials | undefined;
  /** A published archive found corrupt while serving: counted, logged, re-validation asked. */
  readonly onArchiveFormatError: (meta: ArchiveMeta, reason: ArchiveFormatReason) => void;
  /** Started in order after the listeners, stopped in reverse before `connections`. */
  readonly components: readonly Component[];
  /** Ports and clients, closed last, in order. */
  readonly connections: readonly Component[];
  /** Per-key usage: the recorder's counter, the store `/usage` reads, the flusher. */
  readonly usage: ReplicaUsage;
  /** The key registry as it is now (each key's apps and limit, for usage reports). */
  readonly registry: () => Promise<KeyRegistryData>;
}

const MIB = 1024 * 1024;

export async function assembleReplica(
  config: Config,
  logger: Logger,
  metrics: {
    readonly registry: Registry;
    readonly ingest: IngestMetrics | undefined;
  },
  overrides: ReplicaOverrides,
): Promise<ReplicaParts> {
  const components: Component[] = [];
  // Every Redis port of a replica shares one deployment (REDIS_URL): one pair of connections.
  let redis: RedisWiring | undefined;
  const useRedis = (backend: RedisBackend) => (redis ??= connectRedis(backend, logger, 'api'));
  const archives: ArchivesWiring = openArchives(config.archives, logger, {
    sendTimeoutMs: config.http.sendTimeoutS * 1000,
  });
  await archives.prepare();
  const demo =
    config.embedded && config.keys.kind === 'file'
      ? await ensureDemoCredentials(config.keys.path)
      : undefined;

  const { registry } = metrics;
  const { reads } = config;
  // Gated (each key's and address's share of open reads), measured, then cached: reads the
  // cache makes for itself carry no owner and are never refused.
  const gated = createReadGate(archives.store(), {
    perKey: reads.perKey,
    perAddress: reads.perClient,
  });
  const store = createCachingArchiveStore(
    instrumentArchiveStore(gated, registry),
    reads.cacheMb * MIB,
    createCacheMetrics(registry),
  );

  let source: CatalogReader;
  let forecasts: ForecastCatalogReader;
  let revalidation: RevalidationQueue;
  const onCatalogDropped = createCatalogMetrics(registry);
  if (config.catalog.kind === 'redis') {
    const redisWiring = useRedis(config.catalog);
    const wired = redisCatalog(redisWiring, config.catalog, logger, onCatalogDropped);
    source = wired.catalog;
    revalidation = createRedisRevalidationQueue(redisWiring.client);
    const forecastWiring = redisForecasts(redisWiring, config.catalog, logger);
    forecasts = forecastWiring.catalog;
    components.push(wired.component, forecastWiring.component);
  } else {
    // Nobody else publishes into a memory catalog: this replica ingests for itself.
    const memory = createMemoryCatalog();
    const memoryForecasts = createMemoryForecastCatalog();
    source = memory;
    forecasts = memoryForecasts;
    revalidation = createMemoryRevalidationQueue();
    const ingestLogger = logger.child({ component: 'ingest' });
    const cycle = ingestCycle(
      config.publication,
      archives.source(),
      { observed: memory, forecasts: memoryForecasts },
      ingestLogger,
      metrics.ingest,
      revalidation,
    );
    components.push(
      config.archives.kind === 'fs'
        ? directoryIngest(config.archives.dir, cycle, ingestLogger, overrides.watchIntervalMs)
        : soleIngestLoop(config.ingestPollS, cycle, ingestLogger),
    );
  }

  // What clients see: nothing past retention, whatever ingest's state (it prunes per pass).
  const retained = createRetainedCatalog(source, {
    retentionS: config.publication.retentionS,
  });
  components.push({ name: 'retention', start: async () => {}, stop: async () => retained.stop() });
  const catalog: CatalogReader = retained;

  const keys = await openKeyStore(config.keys, config.rate.limit, logger, {
    redis: useRedis,
    pollMs: overrides.keysPollMs,
  });
  const redisLimiter =
    config.limiter.kind === 'redis'
      ? redisRateLimiter(useRedis(config.limiter), config.rate, logger)
      : undefined;
  const limiter = redisLimiter ?? createMemoryRateLimiter(config.rate.windowS);

  // With Redis, replicas share one view of the store with hysteresis, so they agree on
  // `healthy` (docs/reliability.md); alone, a replica's own probe decides.
  const probeIntervalMs = overrides.probeIntervalMs ?? STORE_PROBE_INTERVAL_MS;
  const sharedHealth =
    config.catalog.kind === 'redis'
      ? sharedStoreHealth(useRedis(config.catalog), logger, {
          local: () => probe.reachable(),
          ttlMs: 3 * probeIntervalMs,
        })
      : undefined;
  const probe = createStoreProbe(store, logger, {
    intervalMs: probeIntervalMs,
    ...(sharedHealth ? { onResult: (ok: boolean) => void sharedHealth.health.report(ok) } : {}),
  });
  if (sharedHealth) components.push(sharedHealth.component);
  const storeReachable = sharedHealth ? sharedHealth.health.reachable : probe.reachable;
  components.unshift({
    name: 'store-probe',
    start: async () => {
      await probe.check();
      probe.start();
    },
    stop: async () => probe.stop(),
  });
  if (reads.cacheMb > 0) {
    const warmer = createArchiveWarmer({ catalog, cache: store, logger });
    components.push({
      name: 'cache-warmer',
      start: async () => warmer.start(),
      stop: async () => warmer.stop(),
    });
  }
  // The in-process producer: the simulator, or live MRMS radar (RADAR_SOURCE=mrms), whose
  // source is watched: until it answers, frames already on disk are not live radar of it.
  const sourceWatch =
    config.simulate && config.radarSource === 'mrms'
      ? createSourceWatch({ logger, notify: overrides.notify })
      : ALWAYS_ANSWERED;
  if (config.simulate) {
    components.push(
      config.radarSource === 'mrms'
        ? backgroundMrms(
            archives.frameSink(),
            config.mrms,
            logger,
            registry,
            sourceWatch.watch,
            localFileVerdicts(config.archives),
            config.nowcast,
          )
        : backgroundSimulator(archives.frameSink(), config.simulator, logger, {
            settings: config.nowcast,
            registry,
          }),
    );
    components.push(sourceWatch.component);
  }

  const catalogHealthy = createHealthCheck({
    catalog,
    storeReachable,
    staleAfterS: config.publication.staleAfterS,
  });
  const healthy = () => sourceWatch.answered() && catalogHealthy();
  replicaGauges(registry, {
    cacheBytes: () => store.size(),
    breakerOpen: () => archives.breakerOpen(),
    limiterDegraded: () => redisLimiter?.degraded() ?? false,
    storeReachable: probe.reachable,
    healthy,
  });
  catalogGauges(registry, catalog);
  forecastGauges(registry, forecasts);
  const usage = replicaUsage(config.usage, logger, registry, useRedis, {
    flushMs: overrides.usageFlushMs,
  });
  // Last to start, first to stop: its final flush runs once the drain has recorded everything.
  components.push(...usage.components);
  const registryReader = keyRegistryReader(config.keys, useRedis);
  const connections = [
    // After the final flush, before the Redis client closes.
    closer('usage-store', () => usage.store.close()),
    closer('keys', () => keys.close()),
    // Before the Redis client closes: unspent leased points go back to the shared counter.
    closer('rate-limiter', () => redisLimiter?.close()),
    closer('archive-store', () => store.close()),
    archives.connections,
  ];
  const openRedis = redis as RedisWiring | undefined;
  if (openRedis) connections.push(openRedis.connections);
  return {
    catalog,
    forecasts,
    store,
    keys,
    limiter,
    probe,
    healthy,
    sourceAnswered: sourceWatch.answered,
    statusDocument: createStatusDocumentSource({ catalog, forecasts, healthy }),
    demo,
    onArchiveFormatError: archiveFormatReports(registry, revalidation, logger),
    components,
    connections,
    usage,
    registry: registryReader,
  };
}
