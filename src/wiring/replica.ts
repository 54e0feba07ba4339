/**
 * `buildReplica(config, overrides)`: the one way an API replica is made, by `npm start`, the
 * stack and every test harness. Opens the clients the configuration names (`replica-parts.ts`),
 * loads the API description, builds the Koa app with the viewer and the API reference, listens
 * on the admin port, starts the components, and only then listens on the public port (so no
 * client is answered by a replica whose catalog or keys have not loaded); returns the
 * addresses, the ports and a graceful `shutdown`.
 */
import type { Config } from '../config';
import type { DemoCredentials } from '../embedded/demo-credentials';
import { createAdminServer } from '../http/admin';
import { createAnswerWriter, type AnswerWriter } from '../http/answer-writer';
import { createCore, type Core } from '../http/core/core';
import { createCorsPolicy } from '../http/core/cors';
import { createPublicUrlPolicy } from '../http/core/public-base-url';
import { createHttpServer } from '../http/http-server';
import { createKoaApp } from '../http/koa-app';
import { requestRecorder } from '../http/request-recorder';
import { createTileLocator } from '../tiles/tile-locator';
import { createLogger } from '../logger';
import { createRegistry, exposition } from '../observability/registry';
import { createGuardMetrics } from '../observability/guard-metrics';
import { createIngestMetrics } from '../observability/ingest-metrics';
import { createRequestMetrics } from '../observability/request-metrics';
import type { StoreProbe } from '../serving/store-probe';
import { createViewerRoutes } from '../viewer/viewer-routes';
import { defaultOpenApiAssetsDir, loadOpenApiDocument } from '../openapi/openapi-document';
import { createReferenceRoutes } from '../openapi/reference-routes';
import { startAll, stoppers } from './component';
import { createShutdown, listen } from './lifecycle';
import type { ReplicaOverrides, ReplicaPorts } from './overrides';
import { assembleReplica } from './replica-parts';
import { usageReport } from './usage';

/** A running replica. */
export interface Replica {
  readonly port: number;
  readonly adminPort: number;
  /** The ports the HTTP layer reads (decorated when overrides asked for it). */
  readonly ports: ReplicaPorts;
  /** The core that decides every API answer, and the writer of answers (in-process tests). */
  readonly core: Core;
  readonly writer: AnswerWriter;
  readonly probe: StoreProbe;
  /** Present in embedded mode when the demo key file is in use. */
  readonly demo: DemoCredentials | undefined;
  /** Drains and closes everything; resolves when done (idempotent). */
  readonly shutdown: () => Promise<void>;
}

export async function buildReplica(
  config: Config,
  overrides: ReplicaOverrides = {},
): Promise<Replica> {
  const logger = overrides.logger ?? createLogger(config.logLevel, { service: 'radar-api' });
  logger.debug(
    {
      embedded: config.embedded,
      archives:
        config.archives.kind === 's3'
          ? { ...config.archives, accessKey: undefined, secretKey: undefined }
          : config.archives,
      catalog: config.catalog.kind,
      keys: config.keys.kind === 'file' ? config.keys : 'redis',
      limiter: config.limiter.kind,
      rate: config.rate,
      reads: config.reads,
      simulate: config.simulate,
      radarSource: config.radarSource,
    },
    'configuration (secrets omitted)',
  );
  const registry = createRegistry();
  // A replica that ingests for itself (memory catalog) keeps the ingest metrics too.
  const ingestMetrics =
    config.catalog.kind === 'memory' ? createIngestMetrics(registry) : undefined;
  const parts = await assembleReplica(
    config,
    logger,
    { registry, ingest: ingestMetrics },
    overrides,
  );
  const raw: ReplicaPorts = {
    catalog: parts.catalog,
    store: parts.store,
    keys: parts.keys,
    limiter: parts.limiter,
  };
  const ports = overrides.decoratePorts?.(raw) ?? raw;
  let shuttingDown = false;
  let started = false;

  const openApiAssetsDir = overrides.openApiAssetsDir ?? defaultOpenApiAssetsDir();
  const openApi = loadOpenApiDocument(openApiAssetsDir);
  if (openApi === undefined)
    logger.warn({ dir: openApiAssetsDir }, 'API description not built: /openapi.json answers 503');

  const cors = createCorsPolicy(config.http.corsOrigins);
  const requestMetrics = createRequestMetrics(registry);
  const core = createCore({
    ...ports,
    // One locator for the tile and TileJSON answers, so both share its decoded directories.
    tiles: createTileLocator({ store: ports.store, onFormatError: parts.onArchiveFormatError }),
    forecasts: parts.forecasts,
    statusDocument: parts.statusDocument,
    logger,
    cors,
    cacheControl: config.http.cacheControl,
    baseUrl: createPublicUrlPolicy(config.http),
    openApi,
    ...createGuardMetrics(registry, { defaultLimit: config.rate.limit }),
  });
  requestMetrics.prime(core.routes);
  const writer = createAnswerWriter({
    cors,
    recorder: requestRecorder(logger, requestMetrics, parts.usage.counter),
    draining: () => shuttingDown,
    trustProxy: config.http.trustProxy,
  });
  const koa = createKoaApp({
    core,
    writer,
    trustProxy: config.http.trustProxy,
    pages: [
      createViewerRoutes({
        ...overrides.viewer,
        demo: overrides.viewer?.demo ?? parts.demo,
      }),
      createReferenceRoutes({ assetsDir: openApiAssetsDir }),
    ],
  });
  const publicServer = createHttpServer({
    core,
    writer,
    fallback: koa.callback(),
    trustProxy: config.http.trustProxy,
    inFlight: requestMetrics.inFlight,
    requestTimeoutMs: config.http.requestTimeoutS * 1000,
    sendTimeoutMs: config.http.sendTimeoutS * 1000,
    drainIdleCloseMs: config.http.drainIdleS * 1000,
  });

  const admin = createAdminServer({
    readiness: () => {
      if (shuttingDown) return { ready: false, reason: 'shutting down' };
      if (!started) return { ready: false, reason: 'starting' };
      // The store must have answered once; a later outage shows as `healthy: false` and 503s
      // for archives but keeps the replica ready: it hits every replica alike, and taking all of
      // them out of the load balancer would also take /status.json down.
      if (!parts.probe.everReachable())
        return { ready: false, reason: 'archive store not reached yet' };
      // An in-process radar source (RADAR_SOURCE=mrms) that has never answered: what the data
      // folder holds is not live radar of it.
      if (!parts.sourceAnswered()) return { ready: false, reason: 'radar source not answered yet' };
      return { ready: true };
    },
    metrics: () => exposition(registry),
    usage: async (question) =>
      usageReport(parts.usage.store, await parts.registry(), config.rate, question),
  });

  // The admin port first (/readyz says "starting"), the public port last: a balancer that
  // only sees the port (nginx) sends nothing before the catalog, keys and store have started.
  const adminPort = await listen(admin, config.admin.port, config.admin.host);
  let port: number;
  try {
    await startAll(parts.components);
    port = await listen(publicServer.server, config.http.port, config.http.host);
  } catch (err) {
    // Started parts hold timers and connections: stop them, so the process can exit.
    for (const stop of stoppers(parts.components)) await stop().catch(() => undefined);
    admin.close();
    throw err;
  }
  started = true;
  logger.info({ port, adminPort, embedded: config.embedded }, 'radar API listening');

  const shutdown = createShutdown({
    logger,
    drains: [publicServer.drain],
    lateServers: [admin],
    drainS: config.http.drainS,
    beginShutdown: () => {
      shuttingDown = true;
    },
    closers: [...stoppers(parts.components), ...parts.connections.map((c) => () => c.stop())],
  });
  return { port, adminPort, ports, core, writer, probe: parts.probe, demo: parts.demo, shutdown };
}
