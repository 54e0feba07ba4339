/**
 * Why ingest could not read one object, in a fixed vocabulary (a metric label) that means the
 * same in S3 and data-directory mode: a missing object is `not-found` whether S3 said
 * `NoSuchKey` or the disk said `ENOENT`. Only `store` failures (connection refused or reset,
 * timeouts, 5xx) are about the store rather than the object: they end the pass's reads, while
 * every other reason is isolated to its object.
 */

export type ReadFailureReason =
  'not-found' | 'access-denied' | 'archived' | 'encrypted' | 'bad-response' | 'io-error' | 'store';

/** Every value `ReadFailureReason` can take, for metrics exported at 0. */
export const READ_FAILURE_REASONS: readonly ReadFailureReason[] = [
  'not-found',
  'access-denied',
  'archived',
  'encrypted',
  'bad-response',
  'io-error',
  'store',
];

const NOT_FOUND = new Set(['ENOENT', 'ENOTDIR', 'NoSuchKey', 'NotFound']);
const ACCESS_DENIED = new Set([
  'EACCES',
  'EPERM',
  'AccessDenied',
  'Forbidden',
  'AllAccessDisabled',
]);
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

function field(err: unknown, name: string): unknown {
  return typeof err === 'object' && err !== null
    ? (err as Record<string, unknown>)[name]
    : undefined;
}

/** Classifies an error thrown by `ArchiveSource.readHead` (or `remove`). */
export function classifyReadFailure(err: unknown): ReadFailureReason {
  const code = field(err, 'code');
  const status = field(err, 'status') ?? field(err, 'statusCode');
  const message = err instanceof Error ? err.message : '';
  if (typeof code === 'string') {
    if (NOT_FOUND.has(code)) return 'not-found';
    if (ACCESS_DENIED.has(code)) return 'access-denied';
    if (ARCHIVED.has(code)) return 'archived';
    if (STORE.has(code)) return 'store';
  }
  // SSE-C objects answer 400 InvalidRequest ("...stored using a form of Server Side Encryption").
  if (/encrypt/i.test(message)) return 'encrypted';
  if (status === 404) return 'not-found';
  if (status === 403) return 'access-denied';
  if (typeof status === 'number' && status >= 500) return 'store';
  if (field(err, 'name') === 'RangeMismatchError') return 'bad-response';
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return 'io-error';
  return 'bad-response';
}

/** A one-line description for logs (code and message; never credentials). */
export function describeReadFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = field(err, 'code');
  return typeof code === 'string' && !err.message.includes(code)
    ? `${code}: ${err.message}`
    : err.message;
}
