/**
 * Reading the errors of the minio client and of raw S3 requests, so every S3 adapter draws
 * the same line between "the object is not there" (a 404 for one archive) and "the store is
 * failing" (a 503 for everything, counted by the circuit breaker).
 */
import {
  ArchiveNotFoundError,
  ArchiveReadError,
  StoreUnavailableError,
  type ArchiveReadReason,
} from '../../domain/archive-errors';

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * True when the store answered that the object does not exist. `NoSuchBucket` is not one of
 * them: a missing bucket is a broken deployment, not a missing archive.
 */
export function isS3NotFound(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'NoSuchKey' || code === 'NotFound';
}

const ACCESS_DENIED = new Set(['AccessDenied', 'Forbidden', 'AllAccessDisabled']);
/** Glacier / Deep Archive / archive tiers: listed, but not readable until restored. */
const ARCHIVED = new Set(['InvalidObjectState', 'ObjectNotInActiveTierError']);
/** The store itself failing or unreachable, not one object. */
const STORE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'S3Timeout',
  'InternalError',
  'ServiceUnavailable',
  'SlowDown',
  'NoSuchBucket',
]);

/**
 * What an S3 error means for one object's read: `'not-found'`, `'store'` (the store as a
 * whole is failing), or the per-object reason. The table ingest once read, now at the boundary.
 */
export function s3ReadReason(err: unknown): ArchiveReadReason | 'not-found' | 'store' {
  if (isS3NotFound(err)) return 'not-found';
  const code = errorCode(err);
  const record = (err ?? {}) as { status?: unknown; statusCode?: unknown; name?: unknown };
  const status = record.status ?? record.statusCode;
  if (code !== undefined) {
    if (ACCESS_DENIED.has(code)) return 'access-denied';
    if (ARCHIVED.has(code)) return 'archived';
    if (STORE.has(code)) return 'store';
  }
  // SSE-C objects answer 400 InvalidRequest ("...stored using a form of Server Side Encryption").
  if (err instanceof Error && /encrypt/i.test(err.message)) return 'encrypted';
  if (status === 404) return 'not-found';
  if (status === 403) return 'access-denied';
  if (typeof status === 'number' && status >= 500) return 'store';
  if (record.name === 'RangeMismatchError') return 'bad-response';
  if (code !== undefined && /^E[A-Z]+$/.test(code)) return 'io-error';
  return 'bad-response';
}

/**
 * The boundary for ingest's reads: every S3 error becomes one of the core's archive errors
 * (a missing object is `ArchiveNotFoundError`, what a data directory's `ENOENT` becomes too).
 */
export function translateS3Error(name: string, err: unknown): Error {
  const reason = s3ReadReason(err);
  const detail = `${name}: ${describeS3Error(err)}`;
  if (reason === 'not-found') return new ArchiveNotFoundError(name, { cause: err });
  if (reason === 'store') return new StoreUnavailableError(detail, { cause: err });
  return new ArchiveReadError(reason, detail, { cause: err });
}

/** True when a conditional write was refused because the object already exists. */
export function isS3PreconditionFailed(err: unknown): boolean {
  return errorCode(err) === 'PreconditionFailed';
}

/** True when a ranged read asked beyond the end of the object (S3 answers 416). */
export function isS3InvalidRange(err: unknown): boolean {
  return errorCode(err) === 'InvalidRange';
}

/** A one-line description for logs: code and message, never credentials or signatures. */
export function describeS3Error(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = errorCode(err);
  return code !== undefined && !err.message.includes(code)
    ? `${code}: ${err.message}`
    : err.message;
}
