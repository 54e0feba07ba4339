/**
 * One reconciliation pass of ingest: list the store, publish every new, valid, in-window
 * archive, then apply retention. Used by the embedded directory watcher and by the ingest
 * worker alike; running it again is always safe (publishing is idempotent).
 */
import type { ArchiveSource, CatalogWriter, StoredObject } from '../domain/ports';
import { parseTimestamp, timestampFromFileName } from '../domain/timestamps';
import type { Logger } from '../logger';
import { HEADER_REJECTION_REASONS, validateArchiveHead } from '../pmtiles/validate';

/** Bytes read to validate a header: the PMTiles root directory must lie inside them. */
export const HEAD_BYTES = 16384;
/** Archives this far in the future are clock errors, not data (they would pin `latest`). */
export const FUTURE_SKEW_MS = 5 * 60_000;
/** Objects are deleted this long after their timestamp left the catalog (in-flight reads). */
export const DELETE_GRACE_MS = 10 * 60_000;

/**
 * Every reason ingest refuses an object (a closed list: the rejection metric exports each at 0
 * from the start, and a new reason cannot be counted without being added here).
 */
export const INGEST_REJECTION_REASONS = ['bad-name', ...HEADER_REJECTION_REASONS] as const;
export type IngestRejectionReason = (typeof INGEST_REJECTION_REASONS)[number];

export interface IngestEvents {
  onPublished?(timestamp: string, lagMs: number): void;
  onRejected?(name: string, reason: IngestRejectionReason): void;
}

export interface IngestCycleOptions extends IngestEvents {
  readonly source: ArchiveSource;
  readonly catalog: CatalogWriter;
  readonly logger: Logger;
  readonly retentionS: number;
  readonly now?: () => number;
}

export interface IngestCycle {
  /** Lists, publishes and prunes once. Rejects only when the store or catalog fails. */
  run(): Promise<void>;
}

export function createIngestCycle(options: IngestCycleOptions): IngestCycle {
  const { source, catalog, logger } = options;
  const now = options.now ?? Date.now;
  /** Objects already rejected, by name and version, so each is logged and counted once. */
  const rejected = new Map<string, string>();

  const version = (o: StoredObject) => `${o.size}:${o.etag}`;

  const reject = (object: StoredObject, reason: IngestRejectionReason) => {
    rejected.set(object.name, version(object));
    logger.warn(
      { object: object.name, size: object.size, reason },
      'archive rejected; not published',
    );
    options.onRejected?.(object.name, reason);
  };

  const consider = async (object: StoredObject, published: Set<string>, cutoffMs: number) => {
    if (rejected.get(object.name) === version(object)) return;
    const timestamp = timestampFromFileName(object.name);
    if (timestamp === undefined) return reject(object, 'bad-name');
    if (published.has(timestamp)) return;
    const epochMs = parseTimestamp(timestamp) ?? 0;
    if (epochMs < cutoffMs) return; // past retention: never (re)published
    if (epochMs > now() + FUTURE_SKEW_MS) return; // reconsidered on later passes
    const check = validateArchiveHead(await source.readHead(object.name, HEAD_BYTES), object.size);
    if (!check.ok) return reject(object, check.reason);
    const fresh = await catalog.publish({
      timestamp,
      size: object.size,
      etag: object.etag,
      lastModified: object.lastModified,
    });
    if (fresh) {
      const lagMs = Math.max(0, now() - object.lastModified.getTime());
      logger.info({ timestamp, size: object.size, lagMs }, 'archive published');
      options.onPublished?.(timestamp, lagMs);
    }
  };

  return {
    async run() {
      const cutoffMs = now() - options.retentionS * 1000;
      const objects = await source.list();
      const published = new Set(await catalog.list());
      // Newest first, so a backlog makes the most useful frame visible soonest.
      objects.sort((a, b) => (a.name < b.name ? 1 : -1));
      for (const object of objects) {
        try {
          await consider(object, published, cutoffMs);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed meanwhile
          throw err;
        }
      }
      const pruned = await catalog.prune(cutoffMs);
      if (pruned.length > 0) logger.info({ pruned }, 'timestamps left retention');
      for (const object of objects) {
        const ts = timestampFromFileName(object.name);
        const epochMs = ts === undefined ? undefined : parseTimestamp(ts);
        if (epochMs !== undefined && epochMs < cutoffMs - DELETE_GRACE_MS) {
          await source.remove(object.name);
          logger.info({ object: object.name }, 'expired archive deleted');
        }
      }
    },
  };
}
