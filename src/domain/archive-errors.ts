/**
 * Why an archive read did not happen, as the archive stores report it. These are facts about
 * one object or one client, never about the store as a whole, so none of them feeds the
 * circuit breaker or counts as a store error; the HTTP layer maps each to its own answer
 * (DESIGN.md §3.4, docs/store-reads.md).
 */

/**
 * Why one object cannot be served as published: its ETag or size differs from the catalog's
 * (replaced or truncated), the answer does not provably hold the asked bytes (`range`,
 * `status`), or the store refuses this object (`forbidden`).
 */
export type ArchiveObjectReason = 'etag' | 'size' | 'range' | 'status' | 'forbidden';

/** Every `ArchiveObjectReason`, for metrics exported at 0 from start. */
export const ARCHIVE_OBJECT_REASONS: readonly ArchiveObjectReason[] = [
  'etag',
  'size',
  'range',
  'status',
  'forbidden',
];

/**
 * The stored object is not the version the catalog published, or cannot be read. Temporary:
 * ingest re-validates the object and republishes or unpublishes it, so the HTTP answer is 503
 * with `Retry-After`. Never a reason to distrust the store for other objects.
 */
export class ArchiveObjectError extends Error {
  constructor(
    readonly reason: ArchiveObjectReason,
    detail: string,
  ) {
    super(`stored object cannot be served as published (${reason}): ${detail}`);
    this.name = 'ArchiveObjectError';
  }
}

/** Which share of the store's connections a refused read would have exceeded. */
export type StoreBusyReason = 'key' | 'client' | 'socket-wait';

/** Every `StoreBusyReason`, for metrics exported at 0 from start. */
export const STORE_BUSY_REASONS: readonly StoreBusyReason[] = ['key', 'client', 'socket-wait'];

/**
 * The read was refused before it reached the store: the caller's key or address already holds
 * its share of the store connections, or no local socket came free in time. Not a store
 * failure: answered 503 with a short `Retry-After`.
 */
export class StoreBusyError extends Error {
  constructor(readonly reason: StoreBusyReason) {
    super(`archive read refused: ${reason} limit of open store reads reached`);
    this.name = 'StoreBusyError';
  }
}

/** The client went away before the bytes were opened; nobody is left to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('client went away before the store answered');
    this.name = 'ClientGoneError';
  }
}
