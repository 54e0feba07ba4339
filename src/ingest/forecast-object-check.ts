/**
 * Ingest's check of one forecast archive: everything an observed archive must pass (header,
 * root directory, bounded metadata JSON, object size, ETag and date) and then the forecast's
 * own metadata (`forecast-metadata.ts`). Reads go through the caller's per-object reader, so a
 * failed read is isolated and retried like an observed object's.
 */
import { objectProblem } from '../domain/archive-meta';
import type { ForecastFrameId } from '../domain/forecast-frames';
import type { StoredObject } from '../domain/ports';
import type { Logger } from '../logger';
import { parseMetadataSection } from '../pmtiles/archive-check';
import { validateArchiveHead } from '../pmtiles/validate';
import { checkForecastMetadata } from './forecast-metadata';
import type { IngestRejectionReason } from './ingest-events';
import { createStructureCheck, type ObjectReader } from './structure-check';

/** The outcome: the cycle's leads, a rejection reason, or 'unreadable' (already counted). */
export type ForecastObjectVerdict =
  { readonly leads: readonly number[] } | { readonly reason: IngestRejectionReason } | 'unreadable';

/** Checks `object` (named as forecast frame `id`); `head` is its first bytes. */
export type ForecastObjectCheck = (
  object: StoredObject,
  id: ForecastFrameId,
  head: Buffer,
  read: ObjectReader,
) => Promise<ForecastObjectVerdict>;

export function createForecastObjectCheck(logger: Logger): ForecastObjectCheck {
  const structure = createStructureCheck(logger);
  return async (object, id, head, read) => {
    const check = validateArchiveHead(head, object.size);
    if (!check.ok) return { reason: check.reason };
    const sized = objectProblem(object);
    if (sized !== undefined) return { reason: sized };
    // The metadata is read once: the structure check and the forecast check share the bytes.
    let metadataBytes: Buffer | undefined;
    const remembering: ObjectReader = async (offset, length) => {
      const bytes = await read(offset, length);
      if (offset === check.header.jsonMetadataOffset) metadataBytes = bytes;
      return bytes;
    };
    const problem = await structure(object, head, check.header, remembering, false);
    if (problem === 'unreadable') return 'unreadable';
    if (problem !== undefined) return { reason: problem };
    const { jsonMetadataOffset: offset, jsonMetadataLength: length } = check.header;
    const stored = metadataBytes ?? head.subarray(offset, offset + length);
    const metadata = parseMetadataSection(stored, check.header.internalCompression);
    const verdict = checkForecastMetadata(metadata, id);
    if ('reason' in verdict) {
      logger.info(
        { object: object.name, reason: verdict.reason, detail: verdict.detail },
        'forecast metadata check failed',
      );
      return { reason: verdict.reason };
    }
    return verdict;
  };
}
