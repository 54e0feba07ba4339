/**
 * `buildIngest(config, overrides)`: the ingest worker (`npm run ingest`, the stack, the tests).
 * Lists the archive backend on a period and on bucket notifications, validates and publishes
 * into the Redis index while it holds the leader lease, and serves `/healthz`, `/readyz` and
 * `/metrics` on its admin port.
 */
import { waitForRedisReady } from '../adapters/redis/client';
import { createRedisForecastWriter } from '../adapters/redis/forecast-catalog';
import { createRedisRevalidationQueue } from '../adapters/redis/revalidation-queue';
import type { Config } from '../config';
import { createIngestWorker, type IngestWorker } from '../ingest/ingest-worker';
import { createLogger } from '../logger';
import { createRegistry, finiteOr, liveGauge } from '../observability/registry';
import { processInstanceName } from '../shared/process-name';
import { createIngestMetrics } from '../observability/ingest-metrics';
import { openArchives } from './open-archives';
import { startAdminServedProcess } from './admin-served-process';
import type { Component } from './component';
import { ingestCycle } from './ingest-parts';
import type { IngestOverrides } from './overrides';
import { connectRedis, LEADER_LEASE_TTL_MS, redisCatalogWriter, redisLeaderLease } from './redis';

export interface RunningIngest {
  readonly adminPort: number;
  readonly owner: string;
  readonly worker: IngestWorker;
  readonly shutdown: () => Promise<void>;
}

export async function buildIngest(
  config: Config,
  overrides: IngestOverrides = {},
): Promise<RunningIngest> {
  if (config.catalog.kind !== 'redis')
    throw new Error('the ingest worker needs REDIS_URL (embedded mode ingests in-process)');
  const logger = overrides.logger ?? createLogger(config.logLevel, { service: 'radar-ingest' });
  const owner = overrides.owner ?? processInstanceName();
  const registry = createRegistry();
  const metrics = createIngestMetrics(registry);
  const redis = connectRedis(config.catalog, logger, 'ingest');
  const archives = openArchives(config.archives, logger);
  const cycle = ingestCycle(
    config.publication,
    archives.source(),
    { observed: redisCatalogWriter(redis), forecasts: createRedisForecastWriter(redis.client) },
    logger,
    metrics,
    createRedisRevalidationQueue(redis.client),
  );
  const worker = createIngestWorker({
    cycle,
    lease: redisLeaderLease(redis, owner, LEADER_LEASE_TTL_MS),
    logger,
    pollMs: config.ingestPollS * 1000,
    leaseRenewMs: LEADER_LEASE_TTL_MS / 3,
  });
  liveGauge(
    registry,
    'radar_ingest_leader',
    '1 while this worker holds the ingest leader lease.',
    () => worker.isLeader(),
  );
  liveGauge(
    registry,
    'radar_ingest_last_success_age_seconds',
    'Seconds since the last complete ingest pass of this worker (-1 before the first).',
    () => finiteOr(-1, worker.lastSuccessAgeS()),
  );
  // After a Redis restart the index may be empty: take the lease back and reconcile at once.
  redis.client.on('ready', () => worker.retake());
  const components: Component[] = [
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
  if (archives.changes) components.push(archives.changes(() => worker.notify()));

  const { adminPort, shutdown } = await startAdminServedProcess({
    logger,
    admin: config.admin,
    registry,
    components,
    clients: [archives.connections, redis.connections],
  });
  logger.info({ owner, adminPort, leader: worker.isLeader() }, 'ingest worker running');
  return { adminPort, owner, worker, shutdown };
}
