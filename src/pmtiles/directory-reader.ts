/**
 * Reading PMTiles v3 directories: the inverse of `directory.ts` and the PMTiles spec's `findTile`.
 * Entries are kept in parallel typed arrays rather than objects, so a cached directory of
 * thousands of entries is a few flat allocations and a lookup is a binary search over numbers.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Compression } from './header';

/** A decoded directory, sorted by tile id. Offsets are as stored (relative to their section). */
export interface Directory {
  readonly tileIds: Float64Array;
  readonly offsets: Float64Array;
  readonly lengths: Float64Array;
  readonly runLengths: Float64Array;
}

/** What a lookup found: tile bytes, or a leaf directory to descend into (`leaf: true`). */
export interface DirectoryHit {
  readonly offset: number;
  readonly length: number;
  readonly leaf: boolean;
}

/** An archive whose bytes cannot be a PMTiles v3 directory; the message says why. */
export class DirectoryFormatError extends Error {}

/**
 * Undoes the archive's internal compression (none, gzip or brotli: what Node decodes without
 * add-ons). Throws `DirectoryFormatError` for other codecs, corrupt data, or an output longer
 * than `maxOutputLength` (when given).
 */
export function decompressInternal(
  bytes: Uint8Array,
  compression: number,
  maxOutputLength?: number,
): Buffer {
  const limit = maxOutputLength === undefined ? {} : { maxOutputLength };
  try {
    switch (compression) {
      case Compression.None:
        if (maxOutputLength !== undefined && bytes.byteLength > maxOutputLength)
          throw new DirectoryFormatError(`section longer than ${maxOutputLength} bytes`);
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      case Compression.Gzip:
        return gunzipSync(bytes, limit);
      case Compression.Brotli:
        return brotliDecompressSync(bytes, limit);
      default:
        throw new DirectoryFormatError(`unsupported internal compression ${compression}`);
    }
  } catch (err) {
    if (err instanceof DirectoryFormatError) throw err;
    throw new DirectoryFormatError(`corrupt compressed section: ${(err as Error).message}`);
  }
}

/**
 * Decodes an uncompressed directory: count, tile id deltas, run lengths, lengths, offsets
 * (0 = contiguous with the previous entry, else offset + 1), all unsigned LEB128 varints.
 * Throws `DirectoryFormatError` on truncation or values beyond 2^53.
 */
export function decodeDirectory(bytes: Uint8Array): Directory {
  let pos = 0;
  const next = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (pos >= bytes.length) throw new DirectoryFormatError('truncated directory');
      const byte = bytes[pos++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 0x80;
      if (scale > 2 ** 56) throw new DirectoryFormatError('varint too long');
    }
    if (!Number.isSafeInteger(value)) throw new DirectoryFormatError('varint beyond 2^53');
    return value;
  };
  const count = next();
  // Each entry needs at least 4 bytes; a larger count is a lie that would allocate a lot.
  if (count > bytes.length) throw new DirectoryFormatError('entry count exceeds directory size');
  const tileIds = new Float64Array(count);
  const offsets = new Float64Array(count);
  const lengths = new Float64Array(count);
  const runLengths = new Float64Array(count);
  let lastId = 0;
  for (let i = 0; i < count; i++) {
    lastId += next();
    tileIds[i] = lastId;
  }
  for (let i = 0; i < count; i++) runLengths[i] = next();
  for (let i = 0; i < count; i++) lengths[i] = next();
  for (let i = 0; i < count; i++) {
    const v = next();
    offsets[i] = v === 0 && i > 0 ? offsets[i - 1]! + lengths[i - 1]! : v - 1;
    if (v === 0 && i === 0) throw new DirectoryFormatError('first entry has no offset');
  }
  return { tileIds, offsets, lengths, runLengths };
}

/**
 * The PMTiles spec's `findTile`: the entry for `tileId`, an earlier entry whose run covers it, or
 * the leaf pointer (run length 0) to search next; undefined when the archive holds no such tile.
 */
export function findTile(dir: Directory, tileId: number): DirectoryHit | undefined {
  let low = 0;
  let high = dir.tileIds.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const id = dir.tileIds[mid]!;
    if (tileId > id) low = mid + 1;
    else if (tileId < id) high = mid - 1;
    else return hit(dir, mid);
  }
  if (high >= 0) {
    const run = dir.runLengths[high]!;
    if (run === 0 || tileId - dir.tileIds[high]! < run) return hit(dir, high);
  }
  return undefined;
}

function hit(dir: Directory, i: number): DirectoryHit {
  return { offset: dir.offsets[i]!, length: dir.lengths[i]!, leaf: dir.runLengths[i] === 0 };
}
