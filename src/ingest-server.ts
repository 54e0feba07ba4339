/**
 * Starts the ingest worker process's parts: the leader-leased ingest loop and bucket
 * notifications (`wireIngest`) plus the admin listener (`/healthz`, `/readyz`). Used by
 * `bin/ingest.ts` and by tests that run a worker in-process.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { listen } from './api-server';
import type { Config } from './config';
import { wireIngest, type IngestDependencies } from './deps';
import { createAdminServer } from './http/admin';
import { createShutdown } from './lifecycle';
import type { Logger } from './logger';
import { createIngestMetrics, createRegistry, exposition } from './metrics';

export interface RunningIngest {
  readonly adminPort: number;
  readonly owner: string;
  readonly deps: IngestDependencies;
  readonly shutdown: () => Promise<void>;
}

export async function startIngestServer(config: Config, logger: Logger): Promise<RunningIngest> {
  const owner = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const registry = createRegistry();
  const metrics = createIngestMetrics(registry);
  const deps = wireIngest(config, logger, owner, metrics);
  let shuttingDown = false;
  let started = false;
  const admin = createAdminServer({
    readiness: () =>
      shuttingDown
        ? { ready: false, reason: 'shutting down' }
        : started
          ? { ready: true }
          : { ready: false, reason: 'starting' },
    metrics: async () => {
      const age = deps.worker.lastSuccessAgeS();
      metrics.lastSuccessAge.set(Number.isFinite(age) ? age : -1);
      metrics.leader.set(deps.worker.isLeader() ? 1 : 0);
      return exposition(registry);
    },
  });
  const adminPort = await listen(admin, config.adminPort, config.adminHost);
  for (const service of deps.services) await service.start();
  started = true;
  logger.info({ owner, adminPort, leader: deps.worker.isLeader() }, 'ingest worker running');
  const shutdown = createShutdown({
    logger,
    servers: [],
    lateServers: [admin],
    drainS: 0,
    beginShutdown: () => {
      shuttingDown = true;
    },
    closers: [...[...deps.services].reverse().map((s) => () => s.stop()), deps.close],
  });
  return { adminPort, owner, deps, shutdown };
}
