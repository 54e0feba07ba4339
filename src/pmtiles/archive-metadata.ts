/**
 * The JSON metadata of a whole archive held in memory. A producer that renders in a worker
 * gets bytes back, and the archive's metadata is where the renderer wrote what the bytes are
 * (product, timestamp, valid time), so the producer reads those facts from the archive itself
 * instead of trusting a second channel.
 */
import { parseMetadataSection } from './archive-check';
import { decodeHeader } from './header';

/**
 * The metadata object of `archive` (a complete PMTiles v3 archive). Throws when the bytes are
 * not such an archive, the metadata section lies outside them, or it is not a JSON object.
 */
export function readArchiveMetadata(archive: Uint8Array): Record<string, unknown> {
  const header = decodeHeader(archive);
  const start = header.jsonMetadataOffset;
  const end = start + header.jsonMetadataLength;
  if (end > archive.length) throw new Error('metadata section lies outside the archive');
  return parseMetadataSection(archive.subarray(start, end), header.internalCompression);
}
