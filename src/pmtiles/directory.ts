/**
 * PMTiles v3 directories: entry serialisation and the root/leaf split. Kept apart from the
 * writer so the byte format (varints, columns, offset zeroing) lives in one small place.
 */
import { gzipSync } from 'node:zlib';
import { HEADER_BYTES, ROOT_WINDOW_BYTES } from './header';

/**
 * One directory entry. `offset` is relative to the tile data section (or, when `runLength` is
 * 0, to the leaf directory section, and the entry points to a leaf directory).
 */
export interface DirectoryEntry {
  tileId: number;
  offset: number;
  length: number;
  runLength: number;
}

/** The serialised directories of an archive. */
export interface DirectoryLayout {
  /** Gzipped root directory; header + root fit in the first 16 KiB. */
  root: Buffer;
  /** Concatenated gzipped leaf directories (empty when the root holds every entry). */
  leaves: Buffer;
  /** Number of leaf directories. */
  leafCount: number;
}

/** Largest root that still leaves header + root inside the first 16 KiB. */
export const MAX_ROOT_BYTES = ROOT_WINDOW_BYTES - HEADER_BYTES;

/** Worst-case varint size of a number below 2^53. */
const MAX_VARINT_BYTES = 8;

/**
 * Encodes entries (sorted by tile id, non-empty) exactly as the PMTiles spec orders them:
 * count, tile id deltas, run lengths, lengths, then offsets (0 when contiguous with the
 * previous entry, else offset + 1), all as unsigned LEB128 varints, then gzip. Throws on an
 * empty or unsorted list, which no reader could use.
 */
export function serializeDirectory(entries: readonly DirectoryEntry[]): Buffer {
  if (entries.length === 0) throw new RangeError('a PMTiles directory must not be empty');
  const out = new Uint8Array(MAX_VARINT_BYTES * (1 + 4 * entries.length));
  let pos = 0;
  const put = (value: number): void => {
    let v = value;
    while (v >= 0x80) {
      out[pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    out[pos++] = v;
  };
  put(entries.length);
  let lastId = 0;
  for (const e of entries) {
    if (e.tileId < lastId) throw new RangeError('directory entries must be sorted by tile id');
    put(e.tileId - lastId);
    lastId = e.tileId;
  }
  for (const e of entries) put(e.runLength);
  for (const e of entries) put(e.length);
  let prev: DirectoryEntry | undefined;
  for (const e of entries) {
    put(prev !== undefined && e.offset === prev.offset + prev.length ? 0 : e.offset + 1);
    prev = e;
  }
  return gzipSync(out.subarray(0, pos));
}

/**
 * Splits tile entries into a root directory and leaf directories so that the root is at most
 * `maxRootBytes` (default: what fits beside the header in 16 KiB). Follows go-pmtiles'
 * `optimizeDirectories`: everything in the root when it fits, otherwise a root of leaf pointers
 * (run length 0) over leaves of at least 4096 entries, grown by 20% until the root fits.
 */
export function buildDirectories(
  entries: readonly DirectoryEntry[],
  maxRootBytes: number = MAX_ROOT_BYTES,
): DirectoryLayout {
  if (entries.length < 16384) {
    const root = serializeDirectory(entries);
    if (root.length <= maxRootBytes) return { root, leaves: Buffer.alloc(0), leafCount: 0 };
  }
  let leafSize = Math.max(4096, entries.length / 3500);
  for (;;) {
    const layout = buildRootAndLeaves(entries, Math.floor(leafSize));
    if (layout.root.length <= maxRootBytes) return layout;
    if (layout.leafCount === 1) {
      throw new RangeError(`a single leaf pointer does not fit a root of ${maxRootBytes} bytes`);
    }
    leafSize *= 1.2;
  }
}

function buildRootAndLeaves(entries: readonly DirectoryEntry[], leafSize: number): DirectoryLayout {
  const rootEntries: DirectoryEntry[] = [];
  const leaves: Buffer[] = [];
  let leavesLength = 0;
  for (let i = 0; i < entries.length; i += leafSize) {
    const chunk = entries.slice(i, i + leafSize);
    const leaf = serializeDirectory(chunk);
    rootEntries.push({
      tileId: chunk[0]!.tileId,
      offset: leavesLength,
      length: leaf.length,
      runLength: 0,
    });
    leaves.push(leaf);
    leavesLength += leaf.length;
  }
  return {
    root: serializeDirectory(rootEntries),
    leaves: Buffer.concat(leaves, leavesLength),
    leafCount: leaves.length,
  };
}
