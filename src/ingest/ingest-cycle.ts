/**
 * One reconciliation pass of ingest: compare the store with the catalog and make the catalog
 * true again, then apply retention. Used by the embedded directory watcher and by the ingest
 * worker alike; running it again is always safe (publishing is idempotent).
 *
 * - A new, valid, in-window object is published; an invalid one is rejected (once per version).
 *   Valid means a valid PMTiles v3 header, root directory and metadata JSON (bounded).
 * - A published timestamp a replica reported as corrupt (`RevalidationQueue`) is checked again,
 *   leaf directories included: unpublished and rejected when bad, kept when it is valid.
 * - A published object whose listed size, ETag or date changed (replaced in the bucket or
 *   on disk) is re-validated: republished with its new metadata when valid, else unpublished.
 * - A published timestamp whose object is gone, and any catalog member that is not a valid,
 *   in-window timestamp with valid metadata (junk written into Redis), is unpublished.
 * - Reading one object can fail for reasons of that object alone (not found, access denied,
 *   archived storage class, SSE-C, I/O error): that object is counted by reason and retried with
 *   backoff; the others are published and retention runs all the same. Only a failure of the
 *   store itself (listing, connection, 5xx) or of the catalog fails the pass.
 */
import { FUTURE_SKEW_MS, objectProblem } from '../domain/archive-meta';
import type {
  ArchiveMeta,
  ArchiveSource,
  CatalogWriter,
  RevalidationQueue,
  StoredObject,
} from '../domain/ports';
import { parseTimestamp, timestampFromFileName } from '../domain/timestamps';
import type { Logger } from '../logger';
import { validateArchiveHead } from '../pmtiles/validate';
import { createExpiredDeleter } from './expired-deleter';
import { createObjectBackoff, objectVersion } from './object-backoff';
import { createStructureCheck } from './structure-check';
import {
  type IngestEvents,
  type IngestRejectionReason,
  type UnpublishReason,
} from './ingest-events';
import { classifyReadFailure, describeReadFailure } from './read-failure';

export { FUTURE_SKEW_MS } from '../domain/archive-meta';

/** Bytes read to validate a header: the PMTiles root directory must lie inside them. */
export const HEAD_BYTES = 16384;

export interface IngestCycleOptions extends IngestEvents {
  readonly source: ArchiveSource;
  readonly catalog: CatalogWriter;
  readonly logger: Logger;
  readonly retentionS: number;
  /** Timestamps replicas found corrupt while serving; re-validated at the start of a pass. */
  readonly revalidation?: RevalidationQueue;
  readonly now?: () => number;
}

export interface IngestCycle {
  /** Lists, publishes and prunes once. Rejects only when the store or catalog fails. */
  run(): Promise<void>;
  /** Objects remembered as rejected or failing (bounded by what the store lists). */
  tracked(): { readonly rejected: number; readonly failing: number };
}

/** A failure of the store as a whole: stops this pass's reads (retention still runs). */
class StoreFailure extends Error {
  constructor(readonly original: unknown) {
    super(describeReadFailure(original));
    this.name = 'StoreFailure';
  }
}

export function createIngestCycle(options: IngestCycleOptions): IngestCycle {
  const { source, catalog, logger } = options;
  const now = options.now ?? Date.now;
  /**
   * Objects rejected, by name and version, so each is logged and counted once. Bounded: a name
   * is forgotten when its object leaves the listing or its timestamp leaves retention.
   */
  const rejected = new Map<string, string>();
  const backoff = createObjectBackoff();

  const reject = (object: StoredObject, reason: IngestRejectionReason) => {
    rejected.set(object.name, objectVersion(object));
    logger.warn(
      { object: object.name, size: object.size, reason },
      'archive rejected; not published',
    );
    options.onRejected?.(object.name, reason);
  };

  const unpublish = async (timestamp: string, reason: UnpublishReason) => {
    if (!(await catalog.unpublish(timestamp))) return;
    logger.warn({ timestamp: JSON.stringify(timestamp.slice(0, 64)), reason }, 'unpublished');
    options.onUnpublished?.(timestamp, reason);
  };

  /**
   * `length` bytes at `offset` of `object` (its head by default), or undefined after an
   * isolated per-object failure (counted, retried with backoff); a store failure throws.
   */
  const readBytes = async (
    object: StoredObject,
    offset = 0,
    length = HEAD_BYTES,
  ): Promise<Buffer | undefined> => {
    try {
      const head =
        offset === 0 && length === HEAD_BYTES
          ? await source.readHead(object.name, HEAD_BYTES)
          : await source.readRange(object.name, offset, length);
      const recovered = backoff.succeed(object.name);
      if (recovered)
        logger.info({ object: object.name, after: recovered.attempts }, 'object readable again');
      return head;
    } catch (err) {
      const reason = classifyReadFailure(err);
      if (reason === 'store') throw new StoreFailure(err);
      const failure = backoff.fail(object.name, objectVersion(object), reason, now());
      const fields = {
        object: object.name,
        reason,
        attempts: failure.attempts,
        retryInMs: failure.retryAtMs - now(),
        err: describeReadFailure(err),
      };
      if (failure.attempts === 1) logger.warn(fields, 'object unreadable; retrying with backoff');
      else logger.debug(fields, 'object still unreadable');
      options.onReadFailed?.(object.name, reason);
      return undefined;
    }
  };

  const checkStructure = createStructureCheck(logger);

  /**
   * Brings one listed object's timestamp in line with the object; returns the timestamp when
   * it is (still) published afterwards. `reported`: a replica found it corrupt while serving,
   * so a published, unchanged object is checked again, leaf directories included.
   */
  const consider = async (
    object: StoredObject,
    published: ReadonlyMap<string, ArchiveMeta>,
    cutoffMs: number,
    reported: ReadonlySet<string>,
  ): Promise<string | undefined> => {
    const timestamp = timestampFromFileName(object.name);
    const epochMs = timestamp === undefined ? undefined : parseTimestamp(timestamp);
    if (epochMs !== undefined && epochMs < cutoffMs) return timestamp; // retention decides
    if (rejected.get(object.name) === objectVersion(object)) return undefined;
    if (timestamp === undefined || epochMs === undefined) return void reject(object, 'bad-name');
    if (epochMs > now() + FUTURE_SKEW_MS) return undefined; // reconsidered on later passes
    const current = published.get(timestamp);
    const unchanged = current !== undefined && objectVersion(current) === objectVersion(object);
    const revalidating = unchanged && reported.has(timestamp);
    if (unchanged && !revalidating) return timestamp;
    if (backoff.waiting(object.name, objectVersion(object), now())) {
      if (current && !unchanged) await unpublish(timestamp, 'replaced-unreadable');
      return unchanged ? timestamp : undefined;
    }
    const head = await readBytes(object);
    if (head === undefined) {
      if (current && !unchanged) await unpublish(timestamp, 'replaced-unreadable');
      return unchanged ? timestamp : undefined;
    }
    const check = validateArchiveHead(head, object.size);
    let problem: IngestRejectionReason | undefined = check.ok
      ? objectProblem(object)
      : check.reason;
    if (problem === undefined && check.ok) {
      const structure = await checkStructure(
        object,
        head,
        check.header,
        (offset, length) => readBytes(object, offset, length),
        revalidating,
      );
      if (structure === 'unreadable') {
        if (current && !unchanged) await unpublish(timestamp, 'replaced-unreadable');
        return unchanged ? timestamp : undefined;
      }
      problem = structure;
    }
    if (problem !== undefined) {
      reject(object, problem);
      if (current)
        await unpublish(timestamp, revalidating ? 'failed-revalidation' : 'replaced-invalid');
      return undefined;
    }
    if (revalidating) {
      logger.info({ timestamp }, 'reported archive re-validated; it stays published');
      return timestamp;
    }
    const meta = {
      timestamp,
      size: object.size,
      etag: object.etag,
      lastModified: object.lastModified,
    };
    if (!(await catalog.publish(meta))) return timestamp;
    if (current) {
      logger.warn(
        { timestamp, size: object.size, etag: object.etag, was: current.etag },
        'archive replaced in the store; republished with its new metadata',
      );
      options.onRepublished?.(timestamp);
    } else {
      const lagMs = Math.max(0, now() - object.lastModified.getTime());
      logger.info({ timestamp, size: object.size, lagMs }, 'archive published');
      options.onPublished?.(timestamp, lagMs);
    }
    return timestamp;
  };

  /** Withdraws every member that no listed, valid object backs (only after a complete pass). */
  const repair = async (
    members: readonly string[],
    published: ReadonlyMap<string, ArchiveMeta>,
    kept: ReadonlySet<string>,
    listed: ReadonlySet<string>,
    listingEmpty: boolean,
    cutoffMs: number,
  ) => {
    for (const member of members) {
      if (kept.has(member)) continue;
      const epochMs = parseTimestamp(member);
      if (epochMs !== undefined && epochMs < cutoffMs) continue; // retention removes it
      const valid = published.has(member);
      if (valid && listed.has(member)) continue; // its object is in backoff or deferred
      if (valid && listingEmpty) continue; // an empty listing is more likely a fault than news
      await unpublish(member, valid ? 'object-missing' : 'catalog-junk');
    }
  };

  const deleteExpired = createExpiredDeleter(source, logger, options.onReadFailed);

  const prune = async (cutoffMs: number) => {
    const pruned = await catalog.prune(cutoffMs);
    if (pruned.length > 0) logger.info({ pruned }, 'timestamps left retention');
  };

  return {
    tracked: () => ({ rejected: rejected.size, failing: backoff.size() }),
    async run() {
      const cutoffMs = now() - options.retentionS * 1000;
      // Taken first: a report made during this pass waits for the next one.
      const reported = new Set(await (options.revalidation?.take() ?? Promise.resolve([])));
      const token = await catalog.reconciliation?.begin();
      // The catalog is read before the store is listed: every member then names an object that
      // existed before the listing began, so a concurrent publication is never taken for junk.
      const members = await catalog.list();
      const published = new Map((await catalog.entries()).map((m) => [m.timestamp, m]));
      // A listing that fails stops this pass's reads; retention still runs (it needs none).
      const objects = await source.list().catch(async (err: unknown) => {
        await prune(cutoffMs);
        throw err;
      });
      const names = new Set(objects.map((o) => o.name));
      for (const name of rejected.keys()) if (!names.has(name)) rejected.delete(name);
      backoff.retain(names);
      // Newest first, so a backlog makes the most useful frame visible soonest.
      objects.sort((a, b) => (a.name < b.name ? 1 : -1));
      const kept = new Set<string>();
      let storeFailure: StoreFailure | undefined;
      for (const object of objects) {
        try {
          const timestamp = await consider(object, published, cutoffMs, reported);
          reported.delete(timestampFromFileName(object.name) ?? '');
          if (timestamp !== undefined) kept.add(timestamp);
        } catch (err) {
          if (!(err instanceof StoreFailure)) throw err;
          storeFailure = err;
          break;
        }
      }
      if (!storeFailure) {
        const listed = new Set<string>();
        for (const o of objects) {
          const ts = timestampFromFileName(o.name);
          if (ts !== undefined) listed.add(ts);
        }
        await repair(members, published, kept, listed, objects.length === 0, cutoffMs);
      }
      await prune(cutoffMs);
      for (const name of rejected.keys()) {
        const ts = timestampFromFileName(name);
        if (ts !== undefined && (parseTimestamp(ts) ?? 0) < cutoffMs) rejected.delete(name);
      }
      if (storeFailure) {
        // Reports this pass did not reach are asked again, for the next pass.
        for (const timestamp of reported)
          await options.revalidation?.request(timestamp).catch(() => undefined);
        throw storeFailure.original;
      }
      if (token !== undefined) await catalog.reconciliation?.complete(token);
      await deleteExpired(objects, cutoffMs);
    },
  };
}
