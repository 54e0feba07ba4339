/**
 * Outermost middleware: turns every failure into the SPEC error record with the exact status
 * message. Unknown errors become a logged 500 whose body reveals nothing internal.
 */
import type { Middleware } from 'koa';
import { ArchiveObjectError, ClientGoneError, StoreBusyError } from '../../domain/archive-errors';
import {
  BadRequestError,
  errorRecord,
  HttpError,
  InternalServerError,
  NotFoundError,
  ServiceUnavailableError,
} from '../../errors';
import type { Logger } from '../../logger';
import { createErrorLogSampler } from '../error-log-sampler';

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
 * A stored object that is not the published version: ingest re-validates it within a pass or
 * two and republishes or unpublishes it, so a retry after this long finds the answer.
 */
export const OBJECT_RETRY_AFTER_S = 10;
/** A read refused for the caller's share of store connections: they free up within seconds. */
export const BUSY_RETRY_AFTER_S = 1;

/** Maps foreign errors (koa, router, http-errors, the stores' own) onto the registry. */
function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof ArchiveObjectError)
    return new ServiceUnavailableError({ cause: err, retryAfterS: OBJECT_RETRY_AFTER_S });
  if (err instanceof StoreBusyError)
    return new ServiceUnavailableError({ cause: err, retryAfterS: BUSY_RETRY_AFTER_S });
  const status = (err as { status?: unknown } | null)?.status;
  switch (status) {
    case 400:
    case 413:
    case 414:
    case 431:
      return new BadRequestError({ cause: err });
    case 404:
      return new NotFoundError({ cause: err });
    case 503:
      return new ServiceUnavailableError({ cause: err });
    default:
      return new InternalServerError({ cause: err });
  }
}

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
      if (error instanceof ServiceUnavailableError && !(err instanceof HttpError)) {
        // Per-object problems and refused reads are counted by reason and reported once at
        // their source; a line per request would only flood the log.
        logger.debug({ err: (err as Error).message, path: ctx.path }, 'archive read refused');
      } else if (error.status >= 500) {
        const cause = err instanceof HttpError ? (err.cause ?? err) : err;
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
      ctx.body = JSON.stringify(errorRecord(error));
    }
  };
}
