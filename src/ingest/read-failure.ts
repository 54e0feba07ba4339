/**
 * Why ingest could not read one object, in a fixed vocabulary (a metric label) that means the
 * same in S3 and data-directory mode. Ingest reads only the core's error types: each source
 * translates its technology's errors at its own boundary (`adapters/s3/errors.ts`,
 * `adapters/fs/read-errors.ts`) into `ArchiveNotFoundError`, `StoreUnavailableError` or an
 * `ArchiveReadError` carrying the reason. Only `store` failures are about the store rather
 * than the object: they end the pass's reads, while every other reason is isolated to its
 * object.
 */

import {
  ArchiveNotFoundError,
  ArchiveReadError,
  StoreUnavailableError,
  type ArchiveReadReason,
} from '../domain/archive-errors';

export type ReadFailureReason = 'not-found' | ArchiveReadReason | 'store';

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

/**
 * Classifies an error thrown by `ArchiveSource.readHead` (or `remove`). An error no adapter
 * translated is a broken answer of that object (`bad-response`), never a reason to stop.
 */
export function classifyReadFailure(err: unknown): ReadFailureReason {
  if (err instanceof ArchiveNotFoundError) return 'not-found';
  if (err instanceof StoreUnavailableError) return 'store';
  if (err instanceof ArchiveReadError) return err.reason;
  return 'bad-response';
}

/** A one-line description for logs (the adapter's detail; never credentials). */
export function describeReadFailure(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
