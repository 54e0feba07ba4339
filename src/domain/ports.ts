/**
 * Ports: the narrow interfaces between the HTTP layer / ingest and the technologies behind
 * them. Embedded adapters (file system, memory) and production adapters (S3, Redis) implement
 * the same contracts, so the HTTP layer never changes when the backend does.
 */
import type { Readable } from 'node:stream';
import type { KeyRegistryData } from './key-records';
import type { OriginPolicy } from './origin-policy';
import type { UsageBatch, UsageEntry } from './usage';

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

/** Result of checking a request's credentials. */
export type AuthDecision =
  | { readonly outcome: 'unauthenticated'; readonly reason: 'unknown-key' }
  | {
      readonly outcome: 'unauthenticated';
      readonly reason: 'unknown-app';
      /** The key is known (its hash matched): usage counts the refusal for it. */
      readonly keyId: string;
    }
  | {
      readonly outcome: 'forbidden';
      readonly reason: 'key-disabled' | 'app-disabled' | 'app-not-bound';
      readonly keyId: string;
    }
  | {
      readonly outcome: 'allowed';
      readonly keyId: string;
      readonly appId: string;
      readonly limit: number;
      /** The key's allowed web origins; absent means any (docs/keys.md "Allowed origins"). */
      readonly originPolicy?: OriginPolicy;
    };

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

// ---- Keys: the serving side's one question, and what `npm run keys` reads and writes. Each
// has a key-file and a Redis implementation (`adapters/fs/key-*`, `adapters/redis/key-*`),
// opened only by `wiring/keys.ts`, so the CLI and the replicas agree on where keys live.

/** Credential lookup. Keys are compared as SHA-256 hashes in constant time. */
export interface KeyStore {
  /**
   * A decision from the registry held in memory comes back synchronously, so the core can
   * answer without a promise; a store may still answer asynchronously.
   */
  authenticate(apiKey: string, appId: string): AuthDecision | Promise<AuthDecision>;
  close(): Promise<void>;
}

/** A registry store for administration (the serving side reads through `KeyStore`). */
export interface KeyAdminStore {
  /** The current registry; an empty one when none exists yet. */
  load(): Promise<KeyRegistryData>;
  /**
   * Stores `data`. Stores that can detect concurrent changes reject with
   * `KeyAdminConflictError` when the registry changed since this store's last `load()`.
   */
  save(data: KeyRegistryData): Promise<void>;
  /**
   * Loads, applies `edit` and saves, retrying on a conflict, so two administrators never lose
   * each other's change. `edit` may throw (an operator error); nothing is saved then.
   */
  update(edit: (data: KeyRegistryData) => KeyRegistryData): Promise<KeyRegistryData>;
}

/** The registry changed between load and save; the edit should be made again on fresh data. */
export class KeyAdminConflictError extends Error {
  override readonly name = 'KeyAdminConflictError';
}

// ---- Usage: per-key counts by hour (`domain/usage.ts`), kept in Redis when `REDIS_URL` is
// set (`adapters/redis/usage-store.ts`) and otherwise in a file beside the key file
// (`adapters/fs/usage-file.ts`); opened only by `wiring/usage.ts`.

/** One key's place in the busiest keys of an hour. */
export interface UsageRank {
  readonly keyId: string;
  readonly requests: number;
}

/** Where usage counts are added up and read back, whichever replica counted them. */
export interface UsageStore {
  /**
   * Adds the batch's counts. At most once per (`source`, `seq`): a batch whose `seq` is not
   * above the highest applied for its source changes nothing, so a retry after a lost reply
   * never counts twice. Rejects when the store cannot be reached (the caller keeps the batch).
   */
  apply(batch: UsageBatch): Promise<void>;
  /**
   * Counts of the hours `fromHour`..`toHour` (inclusive), of every key or of `keyIds` only;
   * one entry per key and hour that has counts.
   */
  read(fromHour: number, toHour: number, keyIds?: readonly string[]): Promise<UsageEntry[]>;
  /** The `n` keys with the most requests in `hour`, busiest first. */
  top(hour: number, n: number): Promise<UsageRank[]>;
  close(): Promise<void>;
}

// ---- Producers: where rendered archives are published. A published archive is immutable:
// readers and the ingest side may see a name only once its bytes are complete, and never see
// them change. Implementations: `adapters/fs/frame-sink.ts` (the data directory) and
// `adapters/s3/frame-sink.ts` (the bucket).

/** Destination of rendered frames. */
export interface FrameSink {
  /** Whether the archive of `timestamp` is already published (backfill skips it). */
  has(timestamp: string): Promise<boolean>;
  /**
   * Publishes `bytes` as the archive of `timestamp`, all at once: the final name never shows
   * a partial archive. When that archive already exists it is left untouched and this
   * resolves (publishing is idempotent; the first archive wins).
   */
  put(timestamp: string, bytes: Buffer): Promise<void>;
}

// ---- Feeds: where a producer finds the source files it converts (the MRMS follower reads
// NOAA's GRIB2 files). Implementations: `adapters/s3/bucket-file-feed.ts` (a bucket laid out
// like NOAA's), `adapters/fetch/http-directory-feed.ts` (an HTTP directory listing) and
// `adapters/fs/directory-file-feed.ts` (a local directory).

/** One file of a feed. */
export interface FeedFile {
  /** Where the feed finds it (object key, URL or path); unique within the feed. */
  readonly key: string;
  /** Its file name: the key's last segment. */
  readonly name: string;
  /** The time its name carries (the product's valid time to the second), epoch ms. */
  readonly timeMs: number;
  /**
   * What the feed knows of this copy of the file (a directory's size and mtime), when it
   * knows it: a file refused as bad is tried again once its version changes (it was still
   * being written), never for the life of the process.
   */
  readonly version?: string;
}

/** A source of data files of one product. */
export interface FileFeed {
  /** Where the files come from, for logs. */
  readonly describe: string;
  /**
   * The newest `count` files of the product, newest first. Rejects when the source cannot be
   * listed now (unreachable, timed out, a server error): the caller retries later.
   */
  newest(count: number): Promise<FeedFile[]>;
  /**
   * The bytes of `file`, at most `maxBytes`. Rejects with `FeedFileError` when the file is
   * gone or larger than `maxBytes` (no retry helps), otherwise with the transport's error.
   */
  read(file: FeedFile, maxBytes: number): Promise<Buffer>;
}

/**
 * What a producer remembers of one feed file across restarts: the version it was about to
 * convert, how many conversions of it began without ending (the process died on it), and,
 * once it is refused for good, why.
 */
export interface FileVerdict {
  readonly version?: string;
  readonly attempts: number;
  readonly refused?: string;
}

/**
 * Where the MRMS producer keeps its verdicts on feed files, beside its leader lease (a Redis
 * hash with Redis, a small file beside the archives without), so a file that killed a
 * producer or was refused is not fetched again by the next process.
 */
export interface FileVerdictStore {
  get(key: string): Promise<FileVerdict | undefined>;
  set(key: string, verdict: FileVerdict): Promise<void>;
  delete(key: string): Promise<void>;
  /** Forgets every key not in `keep` (files that left the feed), so the store stays small. */
  retain(keep: ReadonlySet<string>): Promise<void>;
}

/** One feed file that cannot be read, for a reason no retry changes. */
export class FeedFileError extends Error {
  override readonly name = 'FeedFileError';
  constructor(
    readonly key: string,
    /** `not-a-file`: a special file, or a link leading out of the feed (never read). */
    readonly reason: 'missing' | 'too-large' | 'not-a-file',
    detail: string,
  ) {
    super(`${key}: ${detail}`);
  }
}
