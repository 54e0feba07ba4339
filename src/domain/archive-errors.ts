/**
 * Why an archive read did not happen, as every archive adapter (fs, S3) reports it: each
 * translates its technology's errors into these at its own boundary, so the core never reads
 * an errno or an S3 code. Only `StoreUnavailableError` is about the store as a whole; the
 * others are facts about one object or one client and never feed the circuit breaker. The
 * HTTP layer maps each to its answer in one place (`http/core/error-map.ts`,
 * docs/store-reads.md); ingest classifies them in `ingest/read-failure.ts`.
 */

/**
 * No object is stored under this name: S3 `NoSuchKey`/`NotFound` and a disk's `ENOENT` alike.
 * A 404 for that archive; to ingest, the object is gone.
 */
export class ArchiveNotFoundError extends Error {
  constructor(name: string, options?: { cause?: unknown }) {
    super(`no stored object ${name}`, options);
    this.name = 'ArchiveNotFoundError';
  }
}

/**
 * Why one object could not be read, in words that mean the same on every backend: the store
 * refuses this object (`access-denied`), it sits in an archive tier until restored
 * (`archived`), it needs a customer key (`encrypted`), the answer was not the asked bytes
 * (`bad-response`), or the disk failed reading it (`io-error`). A fact about one object, never
 * about the store; these words are ingest's metric labels.
 */
export type ArchiveReadReason =
  'access-denied' | 'archived' | 'encrypted' | 'bad-response' | 'io-error';

/** One object could not be read for `reason`; the adapter keeps its own error as `cause`. */
export class ArchiveReadError extends Error {
  constructor(
    readonly reason: ArchiveReadReason,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot read stored object (${reason}): ${detail}`, options);
    this.name = 'ArchiveReadError';
  }
}

/**
 * The store itself failed or cannot be reached (refused, reset, timed out, 5xx, circuit
 * breaker open). `alreadyReported`: the adapter has logged this condition once (the breaker
 * logs each change of state), so the request path must not log it per request.
 */
export class StoreUnavailableError extends Error {
  readonly alreadyReported: boolean;
  /** Seconds after which a retry can succeed, when the store adapter knows (breaker open). */
  readonly retryAfterS: number | undefined;
  constructor(
    detail: string,
    options: { cause?: unknown; alreadyReported?: boolean; retryAfterS?: number } = {},
  ) {
    super(`archive store unavailable: ${detail}`, { cause: options.cause });
    this.name = 'StoreUnavailableError';
    this.alreadyReported = options.alreadyReported ?? false;
    this.retryAfterS = options.retryAfterS;
  }
}

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

/**
 * Which part of a published archive's own bytes is unreadable as PMTiles: the header, the root
 * directory, a leaf directory (or an entry that points outside the archive), or the metadata.
 */
export type ArchiveFormatReason = 'header' | 'root-directory' | 'leaf-directory' | 'metadata';

/** Every `ArchiveFormatReason`, for metrics exported at 0 from start. */
export const ARCHIVE_FORMAT_REASONS: readonly ArchiveFormatReason[] = [
  'header',
  'root-directory',
  'leaf-directory',
  'metadata',
];

/**
 * A published archive whose bytes, read correctly from the store, are not a readable PMTiles
 * archive where a request needs them (ingest checks the header, root directory and metadata
 * before publishing; a leaf directory is first read when a tile under it is asked for). The
 * replica reports the archive for re-validation, which unpublishes it when it is bad, so the
 * HTTP answer is 503 with `Retry-After` (by then the timestamp is gone, or served again).
 * Never a reason to distrust the store.
 */
export class ArchiveFormatError extends Error {
  constructor(
    readonly reason: ArchiveFormatReason,
    detail: string,
  ) {
    super(`published archive is not readable as PMTiles (${reason}): ${detail}`);
    this.name = 'ArchiveFormatError';
  }
}

/**
 * Why a read was refused or given up as busy: the caller's key or address holds its share of
 * open store reads, no local socket came free in time, or the store kept streaming to other
 * reads but sent this one no first byte in time (`store-busy`).
 */
export type StoreBusyReason = 'key' | 'client' | 'socket-wait' | 'store-busy';

/** Every `StoreBusyReason`, for metrics exported at 0 from start. */
export const STORE_BUSY_REASONS: readonly StoreBusyReason[] = [
  'key',
  'client',
  'socket-wait',
  'store-busy',
];

/**
 * The read was refused (caller's share, no local socket in time) or met a store busy with other
 * reads. Not a store failure: answered 503 with a short `Retry-After`, never fed to the breaker.
 */
export class StoreBusyError extends Error {
  constructor(readonly reason: StoreBusyReason) {
    super(`archive read refused or given up as busy: ${reason}`);
    this.name = 'StoreBusyError';
  }
}

/**
 * The shared catalog index could not be asked about a timestamp this replica's snapshot does
 * not hold (Redis unreachable or slow, or too many lookups at once). While the snapshot is
 * not known to be in sync, the replica cannot tell a frame it has not heard of yet from one
 * that does not exist: answered 503 with a short `Retry-After`, never a false 404.
 */
export class CatalogUnavailableError extends Error {
  constructor(detail: string, options: { cause?: unknown } = {}) {
    super(`catalog index unavailable: ${detail}`, { cause: options.cause });
    this.name = 'CatalogUnavailableError';
  }
}

/** The client went away before the bytes were opened; nobody is left to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('client went away before the store answered');
    this.name = 'ClientGoneError';
  }
}
