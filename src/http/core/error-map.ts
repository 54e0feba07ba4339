/**
 * The one place the core's errors meet the error registry: what each archive error, and each
 * foreign error that carries a `status` (koa, router, http-errors), answers. Adapters throw
 * their own small types (`domain/archive-errors.ts`) and never an HTTP class.
 */
import {
  ArchiveFormatError,
  ArchiveNotFoundError,
  ArchiveObjectError,
  CatalogUnavailableError,
  StoreBusyError,
  StoreUnavailableError,
} from '../../domain/archive-errors';
import {
  BadRequestError,
  HttpError,
  InternalServerError,
  NotFoundError,
  ServiceUnavailableError,
} from '../../errors';

/**
 * A stored object that is not the published version, or a published archive found corrupt
 * while serving: ingest re-validates it within a pass or two and republishes, keeps or
 * unpublishes it, so a retry after this long finds the answer.
 */
export const OBJECT_RETRY_AFTER_S = 10;
/**
 * A read refused for the caller's share of store connections, or given up on a busy store, or
 * a catalog lookup the index could not answer: each frees up within seconds.
 */
export const BUSY_RETRY_AFTER_S = 1;
/**
 * A store that failed one read (timeout, refused connection, 5xx): a retry a second later
 * meets either a store that answers again or the breaker, which says exactly when it will
 * try the store next.
 */
export const STORE_RETRY_AFTER_S = 1;
/** Any other temporary refusal (a 503 from a framework): every 503 says when to retry. */
export const DEFAULT_RETRY_AFTER_S = 5;

/** Maps foreign errors (koa, router, http-errors, the stores' own) onto the registry. */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof ArchiveNotFoundError) return new NotFoundError({ cause: err });
  if (err instanceof StoreUnavailableError)
    return new ServiceUnavailableError({
      cause: err,
      retryAfterS: err.retryAfterS ?? STORE_RETRY_AFTER_S,
    });
  if (err instanceof ArchiveObjectError || err instanceof ArchiveFormatError)
    return new ServiceUnavailableError({ cause: err, retryAfterS: OBJECT_RETRY_AFTER_S });
  if (err instanceof StoreBusyError || err instanceof CatalogUnavailableError)
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
      return new ServiceUnavailableError({ cause: err, retryAfterS: DEFAULT_RETRY_AFTER_S });
    default:
      return new InternalServerError({ cause: err });
  }
}

/**
 * True for refusals that are counted by reason and reported once at their source (a stored
 * object that is not the published version, a read over the caller's share, a catalog lookup
 * the index could not answer): a log line per
 * request would only flood the log.
 */
export function isRoutineRefusal(err: unknown): boolean {
  return (
    err instanceof ArchiveObjectError ||
    err instanceof ArchiveFormatError ||
    err instanceof StoreBusyError ||
    err instanceof CatalogUnavailableError
  );
}
