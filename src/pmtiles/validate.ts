/**
 * Ingest gate for PMTiles archives: decides from the first 16 KiB and the
 * object size alone whether an archive is safe to publish, so a broken upload never reaches
 * clients that fetch header + root in one 16 KiB range and then trust the offsets.
 */
import {
  decodeHeader,
  hasMagic,
  HEADER_BYTES,
  type PmtilesHeader,
  ROOT_WINDOW_BYTES,
} from './header';

/** Every reason `validateArchiveHead` refuses an archive (a closed list, for metrics). */
export const HEADER_REJECTION_REASONS = [
  'bad-object-size',
  'truncated',
  'bad-magic',
  'bad-version',
  'section-outside-object',
  'section-overlaps-header',
  'empty-root',
  'root-outside-16k',
  'bad-zoom',
  'bad-bounds',
  'bad-center',
] as const;
// Same shape as ingest's reason list on purpose: each module owns its closed vocabulary
// (ingest spreads this one into its own), which the metrics' `reason` label relies on.
export type HeaderRejectionReason = (typeof HEADER_REJECTION_REASONS)[number];

/** Outcome of `validateArchiveHead`: the decoded header, or a short machine-friendly reason. */
export type HeaderCheck =
  { ok: true; header: PmtilesHeader } | { ok: false; reason: HeaderRejectionReason };

/**
 * Validates the first <=16 KiB (`head`) of an object of total size `objectSize`. Never throws.
 * Reasons, checked in this order:
 * - `bad-object-size`: `objectSize` is not a non-negative safe integer, or is below `head.length`;
 * - `truncated`: head or object shorter than the 127-byte header;
 * - `bad-magic`, `bad-version` (not 3);
 * - `section-outside-object`: a 64-bit field is 2^53 or more, or the root directory, metadata,
 *   leaf directories or tile data end past `objectSize`;
 * - `section-overlaps-header`: a non-empty section starts inside the header;
 * - `empty-root`: root directory length 0 (the PMTiles spec requires a non-empty root);
 * - `root-outside-16k`: the root directory does not end within the first 16384 bytes;
 * - `bad-zoom`: min zoom above max zoom;
 * - `bad-bounds`: bounds outside lon -180..180 / lat -90..90, or west > east / south > north;
 * - `bad-center`: center outside lon -180..180 / lat -90..90.
 */
export function validateArchiveHead(head: Uint8Array, objectSize: number): HeaderCheck {
  if (!Number.isSafeInteger(objectSize) || objectSize < 0 || objectSize < head.length) {
    return fail('bad-object-size');
  }
  if (head.length < HEADER_BYTES || objectSize < HEADER_BYTES) return fail('truncated');
  if (!hasMagic(head)) return fail('bad-magic');
  if (head[7] !== 3) return fail('bad-version');
  let h: PmtilesHeader;
  try {
    h = decodeHeader(head);
  } catch {
    return fail('section-outside-object');
  }
  const sections: Array<[number, number]> = [
    [h.rootDirectoryOffset, h.rootDirectoryLength],
    [h.jsonMetadataOffset, h.jsonMetadataLength],
    [h.leafDirectoryOffset, h.leafDirectoryLength],
    [h.tileDataOffset, h.tileDataLength],
  ];
  if (sections.some(([offset, length]) => offset + length > objectSize)) {
    return fail('section-outside-object');
  }
  if (sections.some(([offset, length]) => length > 0 && offset < HEADER_BYTES)) {
    return fail('section-overlaps-header');
  }
  if (h.rootDirectoryLength === 0) return fail('empty-root');
  if (h.rootDirectoryOffset + h.rootDirectoryLength > ROOT_WINDOW_BYTES) {
    return fail('root-outside-16k');
  }
  if (h.minZoom > h.maxZoom) return fail('bad-zoom');
  if (
    !isLongitude(h.minLon) ||
    !isLongitude(h.maxLon) ||
    !isLatitude(h.minLat) ||
    !isLatitude(h.maxLat) ||
    h.minLon > h.maxLon ||
    h.minLat > h.maxLat
  ) {
    return fail('bad-bounds');
  }
  if (!isLongitude(h.centerLon) || !isLatitude(h.centerLat)) return fail('bad-center');
  return { ok: true, header: h };
}

/** True for a finite longitude in -180..180 degrees; shared with the writer's option checks. */
export function isLongitude(v: number): boolean {
  return Number.isFinite(v) && v >= -180 && v <= 180;
}

/** True for a finite latitude in -90..90 degrees; shared with the writer's option checks. */
export function isLatitude(v: number): boolean {
  return Number.isFinite(v) && v >= -90 && v <= 90;
}

function fail(reason: HeaderRejectionReason): HeaderCheck {
  return { ok: false, reason };
}
