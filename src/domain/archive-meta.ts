/**
 * The one definition of acceptable archive metadata, applied wherever metadata enters the
 * service: by ingest to what the store lists, and by replicas to everything read back from the
 * shared catalog (sorted-set members, metadata hashes, events). Whatever fails here is never
 * listed and never reaches a response header, whichever way it arrived.
 */
import { parseTimestamp } from './timestamps';

/** Archives this far in the future are clock errors, not data (they would pin `latest`). */
export const FUTURE_SKEW_MS = 5 * 60_000;
/** A PMTiles v3 archive is at least its fixed header. */
export const MIN_ARCHIVE_BYTES = 127;
/** Longest ETag accepted (S3 ETags are 34-45 characters; anything far longer is junk). */
const MAX_ETAG_LENGTH = 256;
/** Latest instant an HTTP date can express (year 9999). */
const MAX_DATE_MS = Date.UTC(9999, 11, 31, 23, 59, 59);
/**
 * RFC 9110 §8.8.3 strong entity-tag: DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E (no
 * whitespace, no control characters, so nothing can break a header line).
 */
const STRONG_ETAG = /^"[\x21\x23-\x7e]*"$/;

/** Why a timestamp or its metadata is refused; a fixed vocabulary (metric label values). */
export type MetaProblem =
  'bad-timestamp' | 'future-timestamp' | 'bad-size' | 'bad-etag' | 'bad-last-modified';

/** The problems `objectProblem` reports (the others concern the timestamp). */
export type ObjectProblem = Extract<MetaProblem, 'bad-size' | 'bad-etag' | 'bad-last-modified'>;

/** Every value `MetaProblem` can take, for metrics exported at 0. */
export const META_PROBLEMS: readonly MetaProblem[] = [
  'bad-timestamp',
  'future-timestamp',
  'bad-size',
  'bad-etag',
  'bad-last-modified',
];

/** Problem with a timestamp as a catalog key: not a real UTC minute, or beyond the skew. */
export function timestampProblem(timestamp: string, nowMs: number): MetaProblem | undefined {
  const epochMs = parseTimestamp(timestamp);
  if (epochMs === undefined) return 'bad-timestamp';
  if (epochMs > nowMs + FUTURE_SKEW_MS) return 'future-timestamp';
  return undefined;
}

/** True for a strong ETag that is safe to send as a header value. */
export function isStrongEtag(etag: string): boolean {
  return etag.length >= 2 && etag.length <= MAX_ETAG_LENGTH && STRONG_ETAG.test(etag);
}

/** Problem with an object's size, ETag or last-modified time, whatever their source. */
export function objectProblem(object: {
  readonly size: number;
  readonly etag: string;
  readonly lastModified: Date;
}): ObjectProblem | undefined {
  if (!Number.isSafeInteger(object.size) || object.size < MIN_ARCHIVE_BYTES) return 'bad-size';
  if (typeof object.etag !== 'string' || !isStrongEtag(object.etag)) return 'bad-etag';
  // Not `instanceof Date`: a Date made in another realm (a worker, a VM context) is one too.
  const ms =
    typeof (object.lastModified as Partial<Date> | null)?.getTime === 'function'
      ? object.lastModified.getTime()
      : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0 || ms > MAX_DATE_MS) return 'bad-last-modified';
  return undefined;
}
