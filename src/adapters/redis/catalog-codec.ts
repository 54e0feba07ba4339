/**
 * How catalog entries and events look inside Redis: the per-timestamp metadata hash and the
 * JSON messages on the events channel. Pure, so replicas and the ingest worker agree on one
 * format and a malformed entry is rejected in one place instead of reaching a response.
 */
import type { ArchiveMeta } from '../../domain/ports';
import { parseTimestamp } from '../../domain/timestamps';

/** A change announced on the catalog events channel. */
export type CatalogEvent =
  | { readonly type: 'publish'; readonly meta: ArchiveMeta }
  | { readonly type: 'prune'; readonly timestamps: readonly string[] };

/** Score of a timestamp in the sorted set: epoch seconds, or undefined for a non-timestamp. */
export function timestampScore(timestamp: string): number | undefined {
  const ms = parseTimestamp(timestamp);
  return ms === undefined ? undefined : ms / 1000;
}

/** Field/value pairs of the metadata hash (`HSET key f1 v1 f2 v2 …`). */
export function metaToHashFields(meta: ArchiveMeta): string[] {
  return [
    'size',
    String(meta.size),
    'etag',
    meta.etag,
    'lastModified',
    String(meta.lastModified.getTime()),
  ];
}

function isSize(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

/**
 * Metadata from a `HGETALL` reply; undefined when the hash is missing or malformed (a
 * timestamp is better unlisted than served with a wrong size or ETag).
 */
export function metaFromHash(
  timestamp: string,
  hash: Record<string, string>,
): ArchiveMeta | undefined {
  const size = Number(hash['size']);
  const lastModifiedMs = Number(hash['lastModified']);
  const etag = hash['etag'];
  if (parseTimestamp(timestamp) === undefined || !isSize(size) || !isSize(lastModifiedMs) || !etag)
    return undefined;
  return { timestamp, size, etag, lastModified: new Date(lastModifiedMs) };
}

/** The event message announcing a publication; carries the metadata so no read-back is needed. */
export function encodePublishEvent(meta: ArchiveMeta): string {
  return JSON.stringify({
    type: 'publish',
    timestamp: meta.timestamp,
    size: meta.size,
    etag: meta.etag,
    lastModified: meta.lastModified.getTime(),
  });
}

/**
 * Parses an events-channel message (publish events from `encodePublishEvent`, prune events
 * built by the prune script); undefined for anything else, which the caller heals by resyncing.
 */
export function decodeCatalogEvent(message: string): CatalogEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const event = value as Record<string, unknown>;
  if (event['type'] === 'publish' && typeof event['timestamp'] === 'string') {
    const meta = metaFromHash(event['timestamp'], {
      size: String(event['size']),
      etag: typeof event['etag'] === 'string' ? event['etag'] : '',
      lastModified: String(event['lastModified']),
    });
    return meta ? { type: 'publish', meta } : undefined;
  }
  if (event['type'] === 'prune') {
    // cjson encodes an empty Lua table as {}, so an absent or empty list is tolerated.
    const list = Array.isArray(event['timestamps']) ? (event['timestamps'] as unknown[]) : [];
    if (!list.every((t) => typeof t === 'string')) return undefined;
    return { type: 'prune', timestamps: list as string[] };
  }
  return undefined;
}
