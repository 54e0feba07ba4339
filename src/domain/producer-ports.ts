/**
 * The producers' ports. Sinks: where rendered archives are published. A published archive is immutable:
 * readers and the ingest side may see a name only once its bytes are complete, and never see
 * them change. Implementations: `adapters/fs/frame-sink.ts` (the data directory) and
 * `adapters/s3/frame-sink.ts` (the bucket).
 *
 * Feeds: where a producer finds the source files it converts (the MRMS follower reads
 * NOAA's GRIB2 files). Implementations: `sources/mrms/bucket-file-feed.ts` (a bucket laid out
 * like NOAA's), `sources/mrms/http-directory-feed.ts` (an HTTP directory listing) and
 * `sources/mrms/directory-file-feed.ts` (a local directory).
 */

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
