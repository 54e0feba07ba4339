/**
 * The one place real clients and adapters are wired from the configuration. Each concern is
 * chosen independently (DESIGN.md §3.2): Redis or memory for the catalog, limits and events;
 * S3 or the data directory for archives; the key file or Redis for keys. Everything else
 * receives its dependencies as arguments.
 */
import fs from 'node:fs/promises';
import { createCachingArchiveStore } from './adapters/block-cache';
import { createFileKeyStore } from './adapters/fs/key-store';
import { createFsArchiveSource, createFsArchiveStore } from './adapters/fs/archive-store';
import { createMemoryCatalog } from './adapters/memory/catalog';
import { createMemoryRateLimiter } from './adapters/memory/rate-limiter';
import { createRedisCatalog } from './adapters/redis/catalog';
import {
  closeRedisClient,
  createRedisClient,
  createRedisSubscriber,
  type RedisClient,
  waitForRedisReady,
} from './adapters/redis/client';
import { createRedisKeyStore } from './adapters/redis/key-store';
import { INGEST_LEADER_KEY } from './adapters/redis/keys';
import { createRedisLeaderLease } from './adapters/redis/leader-lease';
import { createRedisRateLimiter } from './adapters/redis/rate-limiter';
import { createS3ArchiveSource } from './adapters/s3/archive-source';
import { createS3ArchiveStore } from './adapters/s3/archive-store';
import { createS3Client, type S3Client } from './adapters/s3/client';
import { createS3FrameSink } from './adapters/s3/frame-sink';
import { createArchiveWarmer } from './archive-warmer';
import type { Config } from './config';
import type {
  ArchiveSource,
  ArchiveStore,
  CatalogReader,
  CatalogWriter,
  KeyStore,
  RateLimiter,
} from './domain/ports';
import { createHealthCheck } from './domain/health';
import { createStatusDocumentSource, type StatusDocument } from './domain/status-document';
import { ensureDemoCredentials, type DemoCredentials } from './embedded/demo-credentials';
import { createDirectoryWatcher } from './adapters/fs/directory-watcher';
import { createIngestCycle, type IngestEvents } from './ingest/ingest-cycle';
import {
  watchBucketNotifications,
  type BucketNotifications,
} from './adapters/s3/bucket-notifications';
import { createIngestWorker } from './ingest/ingest-worker';
import { instrumentArchiveStore } from './instrument';
import type { Logger } from './logger';
import type { ApiMetrics, IngestMetrics } from './metrics';
import { createDirectorySink, type FrameSink } from './sim/frame-sink';
import { createRenderPool } from './sim/render-pool';
import { createSimulator } from './sim/simulator';
import { createStoreProbe, type StoreProbe } from './store-probe';

/** A piece of background work with a start and an orderly stop. */
export interface Service {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ApiDependencies {
  readonly catalog: CatalogReader;
  readonly store: ArchiveStore;
  readonly keys: KeyStore;
  readonly limiter: RateLimiter;
  readonly probe: StoreProbe;
  readonly statusDocument: () => StatusDocument | undefined;
  /** The `healthy` flag the status document reports now. */
  readonly healthy: () => boolean;
  /** Started after the listeners, stopped in reverse order before clients close. */
  readonly services: readonly Service[];
  /** Clients and handles, closed last at shutdown. */
  readonly close: () => Promise<void>;
  /** Present in embedded mode when the demo key file is in use. */
  readonly demo: DemoCredentials | undefined;
  /** Bytes held by the hot archive cache. */
  readonly cacheBytes: () => number;
  /** True while the shared limiter is down and the insurance limiter decides (Redis mode). */
  readonly limiterDegraded: () => boolean;
  /** True while the object-store circuit breaker fails fast (S3 mode). */
  readonly breakerOpen: () => boolean;
}

/** Metrics a process records; omitted in tools and tests that do not scrape. */
export interface ProcessMetrics {
  readonly api?: ApiMetrics;
  readonly ingest?: IngestMetrics;
}

/** Ingest events feeding the ingest metrics. */
export function ingestMetricEvents(metrics: IngestMetrics | undefined): IngestEvents {
  if (!metrics) return {};
  return {
    onPublished: (_timestamp, lagMs) => {
      metrics.published.inc();
      metrics.lag.observe(lagMs / 1000);
    },
    onRejected: (_name, reason) => metrics.rejected.inc({ reason }),
    onRepublished: () => metrics.republished.inc(),
    onUnpublished: (_timestamp, reason) => metrics.unpublished.inc({ reason }),
    onReadFailed: (_name, reason) => metrics.readFailures.inc({ reason }),
  };
}

/** Redis connections of one process: a command client and one shared subscriber. */
interface RedisConnections {
  readonly client: RedisClient;
  readonly subscriber: RedisClient;
  close(): Promise<void>;
}

function connectRedis(url: string, config: Config, logger: Logger, role: string): RedisConnections {
  const client = createRedisClient(url, { role, logger, commandTimeoutMs: config.redisTimeoutMs });
  const subscriber = createRedisSubscriber(url, { role: `${role}-sub`, logger });
  return {
    client,
    subscriber,
    close: async () => {
      await closeRedisClient(subscriber);
      await closeRedisClient(client);
    },
  };
}

function connectS3(config: Config): S3Client | undefined {
  return config.s3 ? createS3Client(config.s3, { timeoutMs: config.s3TimeoutMs }) : undefined;
}

function archiveSource(config: Config, s3: S3Client | undefined): ArchiveSource {
  return s3 && config.s3
    ? createS3ArchiveSource({
        client: s3,
        bucket: config.s3.bucket,
        prefix: config.s3.prefix,
        timeoutMs: config.s3TimeoutMs,
      })
    : createFsArchiveSource(config.dataDir);
}

/** Where simulator frames go: the bucket when S3 is configured, else `dir` (the data directory). */
export function frameSink(
  config: Config,
  s3: S3Client | undefined,
  dir: string = config.dataDir,
): FrameSink {
  return s3 && config.s3
    ? createS3FrameSink({ client: s3, bucket: config.s3.bucket, prefix: config.s3.prefix })
    : createDirectorySink(dir);
}

function simulatorService(config: Config, sink: FrameSink, logger: Logger): Service {
  const pool = createRenderPool({ maxZoom: config.simulator.maxZoom });
  const simulator = createSimulator({
    sink,
    pool,
    logger: logger.child({ component: 'simulator' }),
    cadenceS: config.simulator.cadenceS,
    backfill: config.simulator.backfill,
  });
  return {
    name: 'simulator',
    start: async () => {
      void simulator.start();
    },
    stop: async () => {
      await simulator.stop();
      await pool.close();
    },
  };
}

/**
 * In-process ingest for a memory catalog (no Redis): the directory watcher for a data
 * directory, or the polling ingest loop (always leader) for a bucket.
 */
function inProcessIngest(
  config: Config,
  source: ArchiveSource,
  catalog: CatalogWriter,
  logger: Logger,
  events: IngestEvents,
): Service {
  const cycle = createIngestCycle({
    source,
    catalog,
    logger,
    retentionS: config.retentionS,
    ...events,
  });
  if (!config.s3) {
    const watcher = createDirectoryWatcher({ dir: config.dataDir, cycle, logger });
    return { name: 'ingest', start: () => watcher.start(), stop: () => watcher.stop() };
  }
  const worker = createIngestWorker({
    cycle,
    lease: { acquire: async () => true, release: async () => {} },
    logger,
    pollMs: config.ingestPollS * 1000,
    leaseRenewMs: 60_000,
  });
  return { name: 'ingest', start: () => worker.start(), stop: () => worker.stop() };
}

/** Wires an API process from the configuration. */
export async function wireApi(
  config: Config,
  logger: Logger,
  metrics: ProcessMetrics = {},
): Promise<ApiDependencies> {
  const redis = config.redisUrl ? connectRedis(config.redisUrl, config, logger, 'api') : undefined;
  const s3 = connectS3(config);
  const services: Service[] = [];
  const closers: Array<() => Promise<void>> = [];

  let demo: DemoCredentials | undefined;
  if (!config.s3) await fs.mkdir(config.dataDir, { recursive: true });
  if (config.embedded && config.keysFile) demo = await ensureDemoCredentials(config.keysFile);
  if (config.keysFile !== undefined && !(await fs.stat(config.keysFile).catch(() => undefined))) {
    throw new Error(
      `key file ${config.keysFile} does not exist (RADAR_KEYS_FILE); create it with npm run keys`,
    );
  }

  const s3Store =
    s3 && config.s3
      ? createS3ArchiveStore({
          client: s3,
          bucket: config.s3.bucket,
          prefix: config.s3.prefix,
          timeoutMs: config.s3TimeoutMs,
          logger: logger.child({ component: 's3' }),
        })
      : undefined;
  const rawStore: ArchiveStore = s3Store ?? createFsArchiveStore(config.dataDir);
  const measured = metrics.api ? instrumentArchiveStore(rawStore, metrics.api) : rawStore;
  const api = metrics.api;
  const store = createCachingArchiveStore(measured, config.cacheMb * 1024 * 1024, {
    onHit: () => api?.cacheHits.inc(),
    onMiss: () => api?.cacheMisses.inc(),
    onEvict: () => api?.cacheEvictions.inc(),
  });

  let catalog: CatalogReader;
  if (redis) {
    const redisCatalog = createRedisCatalog({
      client: redis.client,
      subscriber: redis.subscriber,
      logger: logger.child({ component: 'catalog' }),
      resyncMs: config.resyncS * 1000,
      onDropped: (_timestamp, reason) => metrics.api?.catalogRefused.inc({ reason }),
    });
    catalog = redisCatalog;
    services.push({
      name: 'catalog',
      start: () => redisCatalog.start(),
      stop: () => redisCatalog.stop(),
    });
  } else {
    const memoryCatalog = createMemoryCatalog();
    catalog = memoryCatalog;
    services.push(
      inProcessIngest(
        config,
        archiveSource(config, s3),
        memoryCatalog,
        logger.child({ component: 'ingest' }),
        ingestMetricEvents(metrics.ingest),
      ),
    );
  }

  const keys: KeyStore =
    config.keysFile !== undefined
      ? await createFileKeyStore({ file: config.keysFile, defaultLimit: config.rateLimit, logger })
      : await createRedisKeyStore({
          client: redis!.client,
          subscriber: redis!.subscriber,
          defaultLimit: config.rateLimit,
          logger: logger.child({ component: 'keys' }),
          resyncMs: config.resyncS * 1000,
        });
  closers.push(() => keys.close());

  const redisLimiter = redis
    ? createRedisRateLimiter({
        client: redis.client,
        windowS: config.rateWindowS,
        logger: logger.child({ component: 'limiter' }),
      })
    : undefined;
  // Before the Redis client closes: unspent leased points go back to the shared counter.
  if (redisLimiter) closers.push(() => redisLimiter.close());
  const limiter: RateLimiter = redisLimiter ?? createMemoryRateLimiter(config.rateWindowS);

  const probe = createStoreProbe(store, logger);
  if (config.cacheMb > 0) {
    const warmer = createArchiveWarmer({ catalog, cache: store, logger });
    services.push({
      name: 'cache-warmer',
      start: async () => warmer.start(),
      stop: async () => warmer.stop(),
    });
  }
  services.unshift({
    name: 'store-probe',
    start: async () => {
      await probe.check();
      probe.start();
    },
    stop: async () => probe.stop(),
  });
  if (config.simulate) services.push(simulatorService(config, frameSink(config, s3), logger));

  const healthy = createHealthCheck({
    catalog,
    storeReachable: probe.reachable,
    staleAfterS: config.staleAfterS,
  });
  closers.push(() => store.close());
  if (s3) closers.push(async () => s3.close());
  if (redis) closers.push(() => redis.close());

  return {
    catalog,
    store,
    keys,
    limiter,
    probe,
    statusDocument: createStatusDocumentSource({ catalog, healthy }),
    healthy,
    services,
    demo,
    cacheBytes: () => store.size(),
    limiterDegraded: () => redisLimiter?.degraded() ?? false,
    breakerOpen: () => s3Store?.breakerOpen() ?? false,
    close: async () => {
      for (const close of closers) await close();
    },
  };
}

/** What the ingest worker process runs: the leader-leased ingest loop over the archive source. */
export interface IngestDependencies {
  readonly worker: ReturnType<typeof createIngestWorker>;
  readonly services: readonly Service[];
  readonly close: () => Promise<void>;
}

/** Wires the ingest worker (`npm run ingest`): needs Redis; reads S3 or the data directory. */
export function wireIngest(
  config: Config,
  logger: Logger,
  owner: string,
  metrics?: IngestMetrics,
): IngestDependencies {
  if (!config.redisUrl)
    throw new Error('the ingest worker needs REDIS_URL (embedded mode ingests in-process)');
  const redis = connectRedis(config.redisUrl, config, logger, 'ingest');
  const s3 = connectS3(config);
  const catalog = createRedisCatalog({
    client: redis.client,
    subscriber: redis.subscriber,
    logger: logger.child({ component: 'catalog' }),
    resyncMs: config.resyncS * 1000,
  });
  const cycle = createIngestCycle({
    source: archiveSource(config, s3),
    catalog,
    logger,
    retentionS: config.retentionS,
    ...ingestMetricEvents(metrics),
  });
  const leaseTtlMs = 15_000;
  const worker = createIngestWorker({
    cycle,
    lease: createRedisLeaderLease({
      client: redis.client,
      key: INGEST_LEADER_KEY,
      owner,
      ttlMs: leaseTtlMs,
    }),
    logger,
    pollMs: config.ingestPollS * 1000,
    leaseRenewMs: leaseTtlMs / 3,
    onLeadershipChange: (leader) => metrics?.leader.set(leader ? 1 : 0),
  });
  // After a Redis restart the index may be empty: take the lease back and reconcile at once.
  redis.client.on('ready', () => worker.retake());
  const services: Service[] = [
    {
      name: 'ingest-worker',
      start: async () => {
        // The first lease attempt must not race the connection handshake.
        await waitForRedisReady(redis.client, 5000).catch(() => {});
        await worker.start();
      },
      stop: () => worker.stop(),
    },
  ];
  if (s3 && config.s3) {
    const { bucket, prefix } = config.s3;
    let notifications: BucketNotifications | undefined;
    services.push({
      name: 'bucket-notifications',
      start: async () => {
        notifications = await watchBucketNotifications({
          client: s3,
          bucket,
          prefix,
          logger: logger.child({ component: 'notifications' }),
          onObjectCreated: () => worker.notify(),
        });
      },
      stop: async () => notifications?.stop(),
    });
  }
  return {
    worker,
    services,
    close: async () => {
      s3?.close();
      await redis.close();
    },
  };
}
