/**
 * Where the simulator publishes finished archives. A published archive is immutable: readers
 * and the ingest side may see a name only once its bytes are complete, and never see them
 * change. Implementations: `adapters/fs/frame-sink.ts` (the data directory) and
 * `adapters/s3/frame-sink.ts` (the bucket).
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
