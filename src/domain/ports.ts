/**
 * Ports: the narrow interfaces between the HTTP layer / ingest and the technologies behind
 * them. Embedded adapters (file system, memory) and production adapters (S3, Redis) implement
 * the same contracts, so the HTTP layer never changes when the backend does. This file holds
 * the archive, catalog, rate-limit and leadership ports; the key ports are in `key-ports.ts`,
 * usage in `usage-ports.ts`, the producers' sinks and feeds in `producer-ports.ts`.
 */
import type { Readable } from 'node:stream';

/** What the service knows about one published archive; served without touching the store. */
export interface ArchiveMeta {
  /** 12-digit UTC timestamp. */
  readonly timestamp: string;
  /** Exact byte size of the archive. */
  readonly size: number;
  /** Strong ETag including quotes, identical on every replica (the store's ETag). */
  readonly etag: string;
  /** Last modification time of the stored object. */
  readonly lastModified: Date;
}

/** Absolute byte window inside an archive, computed by the service (never a suffix range). */
export interface ByteWindow {
  readonly offset: number;
  readonly length: number;
}

/**
 * Who a read is for: the caller's key and address. Stores bound how many reads one key or one
 * address may hold open at once, so a few slow clients cannot take every store connection.
 * Reads for the service itself (cache fills, warming) carry none.
 */
export interface ReadOwner {
  readonly keyId: string | undefined;
  readonly address: string | undefined;
}

/** Bytes of a window: a Buffer when already in memory (cache), else a stream. */
export type ArchiveBody = Readable | Buffer;

/** Read side of archive storage, used by the HTTP layer. */
export interface ArchiveStore {
  /**
   * Opens exactly `window.length` bytes at `window.offset` (a stream, or a Buffer when the
   * bytes are already in memory). Rejects with `NotFoundError` when the object is gone,
   * `ArchiveObjectError` when the stored object is not the published version,
   * `StoreBusyError` when `owner` holds its share of open reads, `ClientGoneError` when
   * `signal` aborted first, and `ServiceUnavailableError` when the store fails.
   * Destroying the stream (or aborting `signal`) releases the underlying request or file.
   */
  openRange(
    meta: ArchiveMeta,
    window: ByteWindow,
    signal: AbortSignal,
    owner?: ReadOwner,
  ): Promise<ArchiveBody>;
  /**
   * The window's bytes if the store holds them in memory now, else `undefined`; no I/O, no
   * waiting. Lets the HTTP layer answer a cached read without an abort signal or a promise.
   */
  readCached?(meta: ArchiveMeta, window: ByteWindow): Buffer | undefined;
  /** Resolves when the store answers; rejects otherwise. Drives `healthy` and `/readyz`. */
  probe(): Promise<void>;
  /** Releases clients and handles. */
  close(): Promise<void>;
}

/** An archive object as the ingest side finds it in storage. */
export interface StoredObject {
  /** File or object name relative to the archive prefix. */
  readonly name: string;
  readonly size: number;
  readonly etag: string;
  readonly lastModified: Date;
}

/** Listing and head reads for ingest; the producer side of storage. */
export interface ArchiveSource {
  /** Every object currently stored under the archive prefix. */
  list(): Promise<StoredObject[]>;
  /** The first `length` bytes of an object (fewer when the object is shorter). */
  readHead(name: string, length: number): Promise<Buffer>;
  /**
   * Exactly `length` bytes at `offset` of an object that holds them (the metadata or leaf
   * directories past the first 16 KiB); fewer when the object ends first.
   */
  readRange(name: string, offset: number, length: number): Promise<Buffer>;
  /** Removes an object after its timestamp left retention. */
  remove(name: string): Promise<void>;
}

/**
 * Published archives a replica found corrupt while serving, for ingest to re-validate:
 * replicas add timestamps, the ingest leader takes them all at the start of a pass. A
 * timestamp asked for twice before a pass is one request.
 */
export interface RevalidationQueue {
  /** Asks for `timestamp` (a published one) to be re-validated by the next ingest pass. */
  request(timestamp: string): Promise<void>;
  /** Every timestamp asked for since the last take, removed from the queue. */
  take(): Promise<string[]>;
}

/** An immutable view of what is published, newest first. */
export interface CatalogSnapshot {
  /** Monotonic per-process version; changes whenever the content changes. */
  readonly version: number;
  /** Published timestamps, newest first, each once. */
  readonly timestamps: readonly string[];
  /** Metadata of a published timestamp. */
  get(timestamp: string): ArchiveMeta | undefined;
}

/** Read side of the catalog for the HTTP layer: O(1) access to the current snapshot. */
export interface CatalogReader {
  current(): CatalogSnapshot;
  /** Whether this replica's snapshot is known to match the shared index. */
  inSync(): boolean;
  /** Seconds since the snapshot was last confirmed against the index (0 when it is the index). */
  syncAgeS(): number;
  /** Called after each snapshot change; returns an unsubscribe function. */
  subscribe(listener: (snapshot: CatalogSnapshot) => void): () => void;
  /**
   * Asks the shared index about a timestamp `current()` lacks, where the snapshot can lag it (a
   * replica's copy of Redis): resolves its metadata (then listed) or `undefined`; rejects with
   * `CatalogUnavailableError` when the index cannot be asked now. Bounded in time and
   * concurrency, misses remembered briefly. Absent where the snapshot is the index.
   */
  find?(timestamp: string): Promise<ArchiveMeta | undefined>;
}

/** Write side of the catalog for ingest. */
export interface CatalogWriter {
  /**
   * Publishes an archive, or replaces the metadata of a published timestamp whose object was
   * replaced (or whose stored metadata is malformed). Resolves true when something was written
   * and announced; publishing identical metadata again is a no-op (false).
   */
  publish(meta: ArchiveMeta): Promise<boolean>;
  /**
   * Withdraws one timestamp (its object vanished or no longer validates); resolves whether it
   * was listed. Replicas drop it like a pruned one.
   */
  unpublish(timestamp: string): Promise<boolean>;
  /** Removes timestamps older than `cutoffMs` (epoch ms); returns the removed ones. */
  prune(cutoffMs: number): Promise<string[]>;
  /** Every member of the index as stored, newest first, valid or not. */
  list(): Promise<string[]>;
  /** Published archives whose stored metadata passes validation (what replicas may list). */
  entries(): Promise<ArchiveMeta[]>;
  /** Present where the index can be lost behind its writers' backs (Redis restarted empty). */
  readonly reconciliation?: IndexReconciliation;
}

/**
 * Marks an index complete once a whole ingest pass made it true since it was last lost; until
 * then a replica keeps the union with its last good snapshot. `begin` is read before the pass
 * lists anything; `complete(token)` marks only if the index was not lost in between.
 */
export interface IndexReconciliation {
  begin(): Promise<string | null>;
  complete(token: string | null): Promise<void>;
}

/** Rate-limit state reported to the client in `X-RateLimit-*` headers. */
export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Unix seconds when the current window ends. */
  readonly resetAtS: number;
  /** Seconds until a retry can succeed (at least 1); meaningful when not allowed. */
  readonly retryAfterS: number;
}

/** Per-key fixed-window limiter; one point per request that passed authorisation. */
export interface RateLimiter {
  /** A decision taken from local state comes back synchronously (no promise to allocate). */
  consume(keyId: string, limit: number): RateDecision | Promise<RateDecision>;
}

/**
 * Leadership for the ingest worker: several workers may run for availability, one publishes.
 * A port so the worker loop stays testable; Redis implements it.
 */
export interface LeaderLease {
  /** Takes or renews the lease; resolves whether this worker holds it now. */
  acquire(): Promise<boolean>;
  /** Gives the lease up if held (shutdown), so another worker takes over at once. */
  release(): Promise<void>;
}
