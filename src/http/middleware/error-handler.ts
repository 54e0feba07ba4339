/**
 * Outermost middleware: turns every failure into the SPEC error record with the exact status
 * message. Unknown errors become a logged 500 whose body reveals nothing internal.
 */
import type { Middleware } from 'koa';
import { ClientGoneError, StoreUnavailableError } from '../../domain/archive-errors';
import { errorBody, HttpError } from '../../errors';
import type { Logger } from '../../logger';
import { createErrorLogSampler } from '../error-log-sampler';
import { isRoutineRefusal, toHttpError } from '../error-map';

/** Headers describing a representation; they never belong on an error record. */
const REPRESENTATION_HEADERS = [
  'content-range',
  'etag',
  'last-modified',
  'cache-control',
  'accept-ranges',
  'content-encoding',
  'content-disposition',
];

/**
 * Creates the error middleware; 5xx causes go to `logger` through a sampler (one full line per
 * kind of cause, then at most one per 10 s with a count; causes already reported at their
 * source, such as breaker fast-fails, none).
 */
export function errorHandler(logger: Logger): Middleware {
  const sampler = createErrorLogSampler({ logger });
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      // A client that left is a client event (the request log records 499): nobody to answer,
      // nothing to log as an error.
      if (err instanceof ClientGoneError || ctx.req.socket.destroyed) {
        ctx.req.socket.destroy();
        return;
      }
      const error = toHttpError(err);
      if (isRoutineRefusal(err)) {
        // Per-object problems and refused reads are counted by reason and reported once at
        // their source; a line per request would only flood the log.
        logger.debug({ err: (err as Error).message, path: ctx.path }, 'archive read refused');
      } else if (error.status >= 500) {
        // The underlying failure (e.g. ECONNREFUSED) names the kind of line the sampler keeps.
        const wrapped = err instanceof HttpError || err instanceof StoreUnavailableError;
        const cause = wrapped ? (err.cause ?? err) : err;
        sampler.report(error.status, cause, { path: ctx.path, method: ctx.method });
      }
      if (ctx.headerSent || !ctx.writable) {
        // Headers already left: the only honest signal left is to cut the connection.
        ctx.req.socket.destroy();
        return;
      }
      for (const name of REPRESENTATION_HEADERS) ctx.remove(name);
      // Headers attached by earlier middleware (CORS keeps its own on err.headers).
      const carried = (err as { headers?: Record<string, string> } | null)?.headers ?? {};
      ctx.set({ ...carried, ...error.headers });
      ctx.status = error.status;
      ctx.set('Content-Type', 'application/json');
      ctx.body = errorBody(error);
    }
  };
}
