/**
 * The JSON metadata of a whole archive held in memory. A producer that renders in a worker
 * gets bytes back, and the archive's metadata is where the renderer wrote what the bytes are
 * (product, timestamp, valid time), so the producer reads those facts from the archive itself
 * instead of trusting a second channel.
 */
import { decompressInternal } from './directory-reader';
import { decodeHeader } from './header';
import { MAX_METADATA_BYTES } from './archive-check';

/**
 * The metadata object of `archive` (a complete PMTiles v3 archive). Throws when the bytes are
 * not such an archive, the metadata section lies outside them, or it is not a JSON object.
 */
export function readArchiveMetadata(archive: Uint8Array): Record<string, unknown> {
  const header = decodeHeader(archive);
  const start = header.jsonMetadataOffset;
  const end = start + header.jsonMetadataLength;
  if (end > archive.length) throw new Error('metadata section lies outside the archive');
  const text = decompressInternal(
    archive.subarray(start, end),
    header.internalCompression,
    MAX_METADATA_BYTES,
  ).toString('utf8');
  const value: unknown = JSON.parse(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error('archive metadata is not a JSON object');
  return value as Record<string, unknown>;
}
