/**
 * The parts of one API replica, chosen by the configuration's tagged unions: each port comes
 * from the wiring of its technology (`fs.ts`, `s3.ts`, `redis.ts`, memory adapters), and the
 * archive store is wrapped the one way every replica ships it: measured, then cached.
 */
import { createCachingArchiveStore, type CachingArchiveStore } from '../adapters/block-cache';
import { createArchiveWarmer } from '../adapters/archive-warmer';
import { createReadGate } from '../adapters/read-gate';
import { createMemoryCatalog } from '../adapters/memory/catalog';
import { createMemoryRateLimiter } from '../adapters/memory/rate-limiter';
import { createStoreProbe, type StoreProbe } from '../adapters/store-probe';
import type { Config } from '../config';
import { createHealthCheck } from '../domain/health';
import type { CatalogReader, KeyStore, RateLimiter } from '../domain/ports';
import { createStatusDocumentSource, type StatusDocument } from '../domain/status-document';
import { ensureDemoCredentials, type DemoCredentials } from '../embedded/demo-credentials';
import { instrumentArchiveStore } from '../instrument';
import type { Logger } from '../logger';
import type { ApiMetrics, IngestMetrics } from '../metrics';
import { openArchives, type ArchivesWiring } from './archives';
import { closer, type Component } from './component';
import { directoryIngest, fileKeyStore } from './fs';
import { ingestCycle, soleIngestLoop } from './ingest-parts';
import type { ReplicaOverrides } from './overrides';
import {
  connectRedis,
  redisCatalog,
  redisKeyStore,
  redisRateLimiter,
  type RedisWiring,
} from './redis';
import { backgroundSimulator } from './simulator';

export interface ReplicaParts {
  readonly catalog: CatalogReader;
  readonly store: CachingArchiveStore;
  readonly keys: KeyStore;
  readonly limiter: RateLimiter;
  readonly probe: StoreProbe;
  readonly healthy: () => boolean;
  readonly statusDocument: () => StatusDocument | undefined;
  /** Present in embedded mode when the demo key file is in use. */
  readonly demo: DemoCredentials | undefined;
  /** Started in order after the listeners, stopped in reverse before `connections`. */
  readonly components: readonly Component[];
  /** Ports and clients, closed last, in order. */
  readonly connections: readonly Component[];
  /** Live state read by the scrape-time gauges. */
  readonly gauges: { limiterDegraded(): boolean; breakerOpen(): boolean; cacheBytes(): number };
}

const MIB = 1024 * 1024;

export async function assembleReplica(
  config: Config,
  logger: Logger,
  metrics: { readonly api: ApiMetrics; readonly ingest: IngestMetrics | undefined },
  overrides: ReplicaOverrides,
): Promise<ReplicaParts> {
  const components: Component[] = [];
  let redis: RedisWiring | undefined;
  const useRedis = (url: string) => (redis ??= connectRedis(url, config, logger, 'api'));
  const archives: ArchivesWiring = openArchives(config.archives, config, logger);
  await archives.prepare();
  const demo =
    config.embedded && config.keys.kind === 'file'
      ? await ensureDemoCredentials(config.keys.path)
      : undefined;

  const api = metrics.api;
  // Gated (each key's and address's share of open reads), measured, then cached: reads the
  // cache makes for itself carry no owner and are never refused.
  const gated = createReadGate(archives.store(), {
    perKey: config.storeReadsPerKey,
    perAddress: config.storeReadsPerClient,
  });
  const store = createCachingArchiveStore(
    instrumentArchiveStore(gated, api),
    config.cacheMb * MIB,
    {
      onHit: () => api.cacheHits.inc(),
      onMiss: () => api.cacheMisses.inc(),
      onEvict: () => api.cacheEvictions.inc(),
    },
  );

  let catalog: CatalogReader;
  if (config.catalog.kind === 'redis') {
    const wired = redisCatalog(useRedis(config.catalog.url), config, logger, (_ts, reason) =>
      api.catalogRefused.inc({ reason }),
    );
    catalog = wired.catalog;
    components.push(wired.component);
  } else {
    // Nobody else publishes into a memory catalog: this replica ingests for itself.
    const memory = createMemoryCatalog();
    catalog = memory;
    const ingestLogger = logger.child({ component: 'ingest' });
    const cycle = ingestCycle(config, archives.source(), memory, ingestLogger, metrics.ingest);
    components.push(
      config.archives.kind === 'fs'
        ? directoryIngest(config.archives.dir, cycle, ingestLogger, overrides.watchIntervalMs)
        : soleIngestLoop(config, cycle, ingestLogger),
    );
  }

  const keys =
    config.keys.kind === 'file'
      ? await fileKeyStore(config.keys.path, config, logger, overrides.keysPollMs)
      : await redisKeyStore(useRedis(config.keys.url), config, logger);
  const redisLimiter =
    config.limiter.kind === 'redis'
      ? redisRateLimiter(useRedis(config.limiter.url), config, logger)
      : undefined;
  const limiter = redisLimiter ?? createMemoryRateLimiter(config.rateWindowS);

  const probe = createStoreProbe(store, logger, { intervalMs: overrides.probeIntervalMs });
  components.unshift({
    name: 'store-probe',
    start: async () => {
      await probe.check();
      probe.start();
    },
    stop: async () => probe.stop(),
  });
  if (config.cacheMb > 0) {
    const warmer = createArchiveWarmer({ catalog, cache: store, logger });
    components.push({
      name: 'cache-warmer',
      start: async () => warmer.start(),
      stop: async () => warmer.stop(),
    });
  }
  if (config.simulate) {
    components.push(backgroundSimulator(archives.frameSink(), config.simulator, logger));
  }

  const healthy = createHealthCheck({
    catalog,
    storeReachable: probe.reachable,
    staleAfterS: config.staleAfterS,
  });
  const connections = [
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
    store,
    keys,
    limiter,
    probe,
    healthy,
    statusDocument: createStatusDocumentSource({ catalog, healthy }),
    demo,
    components,
    connections,
    gauges: {
      limiterDegraded: () => redisLimiter?.degraded() ?? false,
      breakerOpen: () => archives.breakerOpen(),
      cacheBytes: () => store.size(),
    },
  };
}
