/**
 * In-memory catalog for embedded mode: the single process is both the ingest writer and the
 * HTTP reader, so it is always in sync with itself.
 */
import { createSnapshot, EMPTY_SNAPSHOT } from '../../domain/catalog-snapshot';
import type {
  ArchiveMeta,
  CatalogReader,
  CatalogSnapshot,
  CatalogWriter,
} from '../../domain/ports';
import { parseTimestamp } from '../../domain/timestamps';

export type MemoryCatalog = CatalogReader & CatalogWriter;

/** Creates an empty in-memory catalog. */
export function createMemoryCatalog(): MemoryCatalog {
  const metas = new Map<string, ArchiveMeta>();
  const listeners = new Set<(snapshot: CatalogSnapshot) => void>();
  let snapshot = EMPTY_SNAPSHOT;

  const rebuild = () => {
    snapshot = createSnapshot(snapshot.version + 1, metas.values());
    for (const listener of listeners) listener(snapshot);
  };

  return {
    current: () => snapshot,
    inSync: () => true,
    syncAgeS: () => 0,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async publish(meta) {
      const current = metas.get(meta.timestamp);
      if (
        current &&
        current.size === meta.size &&
        current.etag === meta.etag &&
        current.lastModified.getTime() === meta.lastModified.getTime()
      )
        return false;
      metas.set(meta.timestamp, meta);
      rebuild();
      return true;
    },
    async unpublish(timestamp) {
      if (!metas.delete(timestamp)) return false;
      rebuild();
      return true;
    },
    async prune(cutoffMs) {
      const removed = [...metas.keys()].filter((ts) => (parseTimestamp(ts) ?? 0) < cutoffMs);
      for (const ts of removed) metas.delete(ts);
      if (removed.length > 0) rebuild();
      return removed;
    },
    async list() {
      return [...snapshot.timestamps];
    },
    async entries() {
      return snapshot.timestamps.map((ts) => snapshot.get(ts)!);
    },
  };
}
