/**
 * The lookup every per-timestamp route shares (archive, tile, TileJSON): a timestamp in the
 * catalog snapshot is answered from memory, synchronously, as before. One the snapshot lacks
 * is asked of the shared index where the snapshot can lag it (`CatalogReader.find`), if it is
 * newer than the snapshot's newest or the snapshot is not known to be in sync (an older one
 * in an in-sync snapshot is a synchronous 404): a frame another replica already lists must
 * not be a 404 here. When the index cannot be asked, the
 * answer is 404 only if this replica's snapshot is known to be in sync; otherwise the replica
 * cannot tell a frame it has not heard of yet from one that does not exist, and says 503
 * (`CatalogUnavailableError`, with a short `Retry-After`).
 */
import type { ArchiveMeta, CatalogReader } from '../../domain/ports';
import { NotFoundError } from '../../errors';

/** Calls `answer` with the timestamp's metadata: synchronously when the snapshot holds it. */
export function withPublishedMeta<T>(
  catalog: CatalogReader,
  timestamp: string,
  answer: (meta: ArchiveMeta) => T | Promise<T>,
): T | Promise<T> {
  const snapshot = catalog.current();
  const meta = snapshot.get(timestamp);
  if (meta !== undefined) return answer(meta);
  // 12-digit timestamps compare as strings in time order.
  const newest = snapshot.timestamps[0];
  const mayLag = newest === undefined || timestamp > newest || !catalog.inSync();
  if (catalog.find === undefined || !mayLag) throw new NotFoundError();
  return catalog.find(timestamp).then(
    (found) => {
      if (found === undefined) throw new NotFoundError();
      return answer(found);
    },
    (err: unknown) => {
      if (catalog.inSync()) throw new NotFoundError();
      throw err;
    },
  );
}
