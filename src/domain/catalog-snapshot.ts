/**
 * Immutable catalog snapshots. Every replica serves from one snapshot at a time; building a
 * new one per change (not per request) keeps the request path O(1).
 */
import type { ArchiveMeta, CatalogSnapshot } from './ports';

/** Builds a snapshot from metadata in any order; duplicates collapse, newest first. */
export function createSnapshot(version: number, metas: Iterable<ArchiveMeta>): CatalogSnapshot {
  const byTimestamp = new Map<string, ArchiveMeta>();
  for (const meta of metas) byTimestamp.set(meta.timestamp, meta);
  // 12-digit timestamps sort chronologically as strings.
  const timestamps = Object.freeze([...byTimestamp.keys()].sort().reverse());
  return Object.freeze({
    version,
    timestamps,
    get: (timestamp: string) => byTimestamp.get(timestamp),
  });
}

/** The empty snapshot a replica starts from before its first load. */
export const EMPTY_SNAPSHOT: CatalogSnapshot = createSnapshot(0, []);
