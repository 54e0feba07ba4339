/**
 * `createApp(deps)`: the Koa application with every route and middleware, and nothing that
 * touches the network itself. Tests run it over a real socket; `bin/api.ts` only wires
 * dependencies and listens.
 *
 * Order of checks (DESIGN.md §3.1): CORS preflight -> method -> authentication ->
 * authorisation -> rate limit -> validation -> lookup. Unknown paths are 404 before any auth.
 */
import Router from '@koa/router';
import Koa from 'koa';
import type { ArchiveStore, CatalogReader, RateLimiter } from '../domain/ports';
import type { KeyStore } from '../keys/ports';
import type { StatusDocument } from '../domain/status-document';
import { NotFoundError } from '../errors';
import type { Logger } from '../logger';
import { corsMiddleware } from './middleware/cors';
import type { AuthFailureListener } from './middleware/authenticate';
import { errorHandler } from './middleware/error-handler';
import { guard } from './middleware/guard';
import { protocolGuard } from './middleware/protocol-guard';
import type { RateDecisionListener } from './middleware/rate-limit';
import { requestLog, requestRecorder, type RequestMetrics } from './middleware/request-log';
import { securityHeaders } from './middleware/security-headers';
import { archiveRoute } from './routes/archive';
import { statusRoute } from './routes/status';
import { ARCHIVE_ROUTE, STATUS_ROUTE } from './routes/paths';
import { mountTileRoutes } from './tile-routes';
import type { TileLocator } from '../tiles/tile-locator';

export interface AppDeps {
  readonly logger: Logger;
  readonly catalog: CatalogReader;
  readonly store: ArchiveStore;
  readonly keys: KeyStore;
  readonly limiter: RateLimiter;
  readonly statusDocument: () => StatusDocument | undefined;
  readonly corsOrigins: readonly string[];
  readonly cacheControl: 'private' | 'public';
  readonly onAuthFailure?: AuthFailureListener;
  readonly onRateDecision?: RateDecisionListener;
  /** Request metrics; requests are logged either way. */
  readonly metrics?: RequestMetrics;
  /** Behind exactly one reverse proxy: client address from the last X-Forwarded-For hop. */
  readonly trustProxy?: boolean;
  /**
   * Tile locator for the z/x/y and TileJSON routes; the fast path gets the same one, so both
   * share its decoded directories.
   */
  readonly tiles: TileLocator;
  /** Extra routes without credentials (e.g. the viewer), matched after the API routes; optional. */
  readonly extraRoutes?: Router;
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: deps.trustProxy ?? false, maxIpsCount: 1 });
  // Errors are answered by errorHandler; Koa's default stderr printing would double-log.
  app.silent = true;

  const guarded = [guard(deps)];
  // Exact paths only: /STATUS.JSON or /status.json/ are unknown resources (404).
  const router = new Router({ sensitive: true, strict: true });
  router.all(STATUS_ROUTE, ...guarded, statusRoute(deps));
  router.all(ARCHIVE_ROUTE, ...guarded, archiveRoute(deps));
  mountTileRoutes(router, guarded, deps);

  if (deps.metrics)
    deps.metrics.prime(
      router.stack.map((layer) => layer.path).filter((p): p is string => typeof p === 'string'),
    );
  app.use(requestLog(requestRecorder(deps.logger, deps.metrics), deps.metrics));
  app.use(errorHandler(deps.logger));
  app.use(securityHeaders());
  app.use(protocolGuard());
  app.use(corsMiddleware(deps.corsOrigins));
  app.use(router.routes());
  // After the API: its requests skip the extra router's matching (their paths do not overlap).
  if (deps.extraRoutes) app.use(deps.extraRoutes.routes());
  app.use(() => {
    throw new NotFoundError();
  });
  return app;
}
