/**
 * Starts one API replica from a configuration: wires dependencies, listens on the public and
 * admin ports, starts background services, and returns its addresses and a graceful
 * `shutdown`. `bin/api.ts` adds signals; tests run several replicas in one process with it.
 */
import http from 'node:http';
import type { Config } from './config';
import { wireApi, type ApiDependencies } from './deps';
import { createAdminServer } from './http/admin';
import { createHttpServer } from './http/http-server';
import { createApp } from './http/app';
import { createShutdown } from './lifecycle';
import { refreshApiGauges } from './instrument';
import { createViewerRoutes } from './viewer/viewer-routes';
import type { Logger } from './logger';
import { createApiMetrics, createIngestMetrics, createRegistry, exposition } from './metrics';

export interface RunningApi {
  readonly port: number;
  readonly adminPort: number;
  readonly deps: ApiDependencies;
  /** Drains and closes everything; resolves when done (idempotent). */
  readonly shutdown: () => Promise<void>;
}

/** Listens on `port` (0: any) and resolves with the bound port. */
export function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

export async function startApiServer(config: Config, logger: Logger): Promise<RunningApi> {
  logger.debug(
    {
      embedded: config.embedded,
      redis: config.redisUrl !== undefined,
      s3: config.s3
        ? { endpoint: config.s3.endpoint, bucket: config.s3.bucket, prefix: config.s3.prefix }
        : undefined,
      keysFile: config.keysFile,
      rateLimit: config.rateLimit,
      rateWindowS: config.rateWindowS,
      cacheMb: config.cacheMb,
      simulate: config.simulate,
    },
    'configuration (secrets omitted)',
  );
  const registry = createRegistry();
  const apiMetrics = createApiMetrics(registry);
  // Embedded mode ingests in-process, so its ingest metrics live in this registry too.
  const ingestMetrics = config.redisUrl ? undefined : createIngestMetrics(registry);
  const deps = await wireApi(config, logger, { api: apiMetrics, ingest: ingestMetrics });
  let shuttingDown = false;
  let started = false;

  const app = createApp({
    ...deps,
    logger,
    corsOrigins: config.corsOrigins,
    cacheControl: config.cacheControl,
    trustProxy: config.trustProxy,
    metrics: apiMetrics,
    extraRoutes: createViewerRoutes({ demo: deps.demo }),
    onAuthFailure: (reason) => apiMetrics.authFailures.inc({ reason }),
    onRateDecision: (allowed, limit) =>
      apiMetrics.rateLimitDecisions.inc({
        decision: allowed ? 'allowed' : 'limited',
        tier: String(limit),
      }),
  });
  const server = createHttpServer(app, { requestTimeoutMs: config.requestTimeoutS * 1000 });

  const admin = createAdminServer({
    readiness: () => {
      if (shuttingDown) return { ready: false, reason: 'shutting down' };
      if (!started) return { ready: false, reason: 'starting' };
      // The store must have answered once; a later outage shows as `healthy: false` and 503s
      // for archives but keeps the replica ready: it hits every replica alike, and taking all of
      // them out of the load balancer would also take /status.json down.
      if (!deps.probe.everReachable())
        return { ready: false, reason: 'archive store not reached yet' };
      return { ready: true };
    },
    metrics: async () => {
      refreshApiGauges(apiMetrics, {
        catalog: deps.catalog,
        storeReachable: deps.probe.reachable,
        healthy: deps.healthy,
        limiterDegraded: deps.limiterDegraded,
        breakerOpen: deps.breakerOpen,
        cacheBytes: deps.cacheBytes,
      });
      return exposition(registry);
    },
  });

  const port = await listen(server, config.port, config.host);
  const adminPort = await listen(admin, config.adminPort, config.adminHost);
  for (const service of deps.services) await service.start();
  started = true;
  logger.info({ port, adminPort, embedded: config.embedded }, 'radar API listening');

  const shutdown = createShutdown({
    logger,
    servers: [server],
    lateServers: [admin],
    drainS: config.drainS,
    beginShutdown: () => {
      shuttingDown = true;
    },
    closers: [...[...deps.services].reverse().map((s) => () => s.stop()), deps.close],
  });
  return { port, adminPort, deps, shutdown };
}
