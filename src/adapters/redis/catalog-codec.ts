/**
 * How catalog entries and events look inside Redis: the per-timestamp metadata hash and the
 * JSON messages on the events channel. Pure, so replicas and the ingest worker agree on one
 * format and a malformed entry is rejected in one place instead of reaching a response.
 */
import type { ArchiveMeta } from '../../domain/ports';
import {
  META_PROBLEMS,
  objectProblem,
  timestampProblem,
  type MetaProblem,
} from '../../domain/archive-meta';
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

/** Why an entry read back from Redis was dropped: a metadata problem or no hash at all. */
export type CatalogDropReason = MetaProblem | 'missing-metadata';

/** Every value `CatalogDropReason` can take, for metrics exported at 0. */
export const CATALOG_DROP_REASONS: readonly CatalogDropReason[] = [
  ...META_PROBLEMS,
  'missing-metadata',
];

/** A metadata hash read back: the metadata, or why it may not be listed. */
export type DecodedMeta =
  | { readonly ok: true; readonly meta: ArchiveMeta }
  | { readonly ok: false; readonly reason: CatalogDropReason };

const CANONICAL_INTEGER = /^(0|[1-9][0-9]*)$/;

/** A decimal integer exactly as `String(n)` writes it, else NaN (no "1e3", " 7", "0x10"). */
function canonicalInteger(value: string | undefined): number {
  return value !== undefined && CANONICAL_INTEGER.test(value) ? Number(value) : NaN;
}

/**
 * Metadata from a `HGETALL` reply, validated exactly as ingest validates what the store lists
 * (`domain/archive-meta.ts`): a timestamp is better unlisted than served with a wrong size or
 * an ETag that breaks a header line. `nowMs` bounds future timestamps (clock skew allowance).
 */
export function decodeMetaHash(
  timestamp: string,
  hash: Record<string, string>,
  nowMs: number,
): DecodedMeta {
  const keyProblem = timestampProblem(timestamp, nowMs);
  if (keyProblem) return { ok: false, reason: keyProblem };
  if (Object.keys(hash).length === 0) return { ok: false, reason: 'missing-metadata' };
  const etag = hash['etag'] ?? '';
  const meta: ArchiveMeta = {
    timestamp,
    size: canonicalInteger(hash['size']),
    etag,
    lastModified: new Date(canonicalInteger(hash['lastModified'])),
  };
  const problem = objectProblem(meta);
  return problem ? { ok: false, reason: problem } : { ok: true, meta };
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
 * built by the prune scripts); undefined for anything else (including a publication whose
 * metadata fails validation), which the caller heals by resyncing.
 */
export function decodeCatalogEvent(message: string, nowMs: number): CatalogEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const event = value as Record<string, unknown>;
  if (event['type'] === 'publish' && typeof event['timestamp'] === 'string') {
    const decoded = decodeMetaHash(
      event['timestamp'],
      {
        size: String(event['size']),
        etag: typeof event['etag'] === 'string' ? event['etag'] : '',
        lastModified: String(event['lastModified']),
      },
      nowMs,
    );
    return decoded.ok ? { type: 'publish', meta: decoded.meta } : undefined;
  }
  if (event['type'] === 'prune') {
    // cjson encodes an empty Lua table as {}, so an absent or empty list is tolerated.
    const list = Array.isArray(event['timestamps']) ? (event['timestamps'] as unknown[]) : [];
    if (!list.every((t) => typeof t === 'string')) return undefined;
    return { type: 'prune', timestamps: list as string[] };
  }
  return undefined;
}

/** Whether two entries are the same published version. */
export function sameMeta(a: ArchiveMeta, b: ArchiveMeta | undefined): boolean {
  return (
    b !== undefined &&
    a.size === b.size &&
    a.etag === b.etag &&
    a.lastModified.getTime() === b.lastModified.getTime()
  );
}

/** Applies one event to a timestamp → metadata map. */
export function applyEvent(metas: Map<string, ArchiveMeta>, event: CatalogEvent): void {
  if (event.type === 'publish') metas.set(event.meta.timestamp, event.meta);
  else for (const ts of event.timestamps) metas.delete(ts);
}
