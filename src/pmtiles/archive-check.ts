/**
 * Checks of an archive's directories and metadata, beyond the header (`validate.ts`): ingest
 * checks the root directory (it lies in the first 16 KiB already read) and the metadata JSON
 * before publishing, and checks every leaf directory when a replica reports the archive as
 * corrupt. A directory is usable when it decompresses (within a bound), decodes, is not empty,
 * lists tile ids in increasing order, and points only inside its archive's sections: exactly
 * what a reader needs to trust its offsets.
 */
import { decodeDirectory, decompressInternal, type Directory } from './directory-reader';
import type { PmtilesHeader } from './header';

/** Every reason these checks refuse an archive (a closed list, for metrics). */
export const STRUCTURE_REJECTION_REASONS = [
  'bad-root-directory',
  'bad-leaf-directory',
  'bad-metadata',
  'metadata-too-large',
] as const;
export type StructureRejectionReason = (typeof STRUCTURE_REJECTION_REASONS)[number];

/** Largest metadata section read at ingest (as stored, compressed); larger is refused. */
export const MAX_METADATA_BYTES = 1024 * 1024;
/** Largest decompressed directory or metadata: bounds what a small "zip bomb" can cost. */
export const MAX_SECTION_OUTPUT_BYTES = 64 * 1024 * 1024;
/** Largest leaf directory as stored; a pointer to a longer one is a corrupt directory. */
const MAX_LEAF_BYTES = 16 * 1024 * 1024;
/** Leaf reads are coalesced up to this size, so memory stays bounded whatever the archive. */
const LEAF_BATCH_BYTES = 1024 * 1024;
/** Leaf levels below the root a reader follows (root + 3, as the PMTiles spec allows). */
const MAX_LEAF_LEVELS = 3;

/** The decoded directory, or what is wrong with it. */
export type DirectoryCheck =
  | { readonly ok: true; readonly directory: Directory }
  | { readonly ok: false; readonly detail: string };

/** Checks one directory's stored bytes against the header's sections. Never throws. */
export function checkDirectory(stored: Uint8Array, header: PmtilesHeader): DirectoryCheck {
  let directory: Directory;
  try {
    directory = decodeDirectory(
      decompressInternal(stored, header.internalCompression, MAX_SECTION_OUTPUT_BYTES),
    );
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
  const { tileIds, offsets, lengths, runLengths } = directory;
  if (tileIds.length === 0) return { ok: false, detail: 'empty directory' };
  for (let i = 0; i < tileIds.length; i++) {
    if (i > 0 && tileIds[i]! <= tileIds[i - 1]!)
      return { ok: false, detail: `tile ids not increasing at entry ${i}` };
    const leaf = runLengths[i] === 0;
    const sectionLength = leaf ? header.leafDirectoryLength : header.tileDataLength;
    if (lengths[i] === 0) return { ok: false, detail: `entry ${i} has length 0` };
    if (offsets[i]! + lengths[i]! > sectionLength)
      return {
        ok: false,
        detail: `entry ${i} points past the ${leaf ? 'leaf directories' : 'tile data'}`,
      };
    if (leaf && lengths[i]! > MAX_LEAF_BYTES)
      return { ok: false, detail: `entry ${i} points to a leaf of ${lengths[i]} bytes` };
  }
  return { ok: true, directory };
}

/** A metadata section that decompresses but is not a JSON object. */
export class MetadataFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetadataFormatError';
  }
}

/**
 * The metadata object of a stored metadata section (`{}` when it is empty: no metadata
 * describes nothing). Decompressed within {@link MAX_SECTION_OUTPUT_BYTES}, like a directory;
 * how much of it is stored is the caller's bound to set before reading it (ingest refuses more
 * than {@link MAX_METADATA_BYTES}). Throws `DirectoryFormatError` when the section does not
 * decompress (codec, corrupt data, too long) and {@link MetadataFormatError} when its text is
 * not a JSON object: one parse for ingest's check, the tile lookup and a producer's own archive.
 */
export function parseMetadataSection(
  stored: Uint8Array,
  compression: number,
): Record<string, unknown> {
  if (stored.length === 0) return {};
  const text = decompressInternal(stored, compression, MAX_SECTION_OUTPUT_BYTES).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new MetadataFormatError((err as Error).message);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new MetadataFormatError('metadata is not a JSON object');
  return value as Record<string, unknown>;
}

/** What is wrong with the stored metadata section, or undefined when it is a JSON object. */
export function metadataProblem(stored: Uint8Array, header: PmtilesHeader): string | undefined {
  try {
    parseMetadataSection(stored, header.internalCompression);
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
}

/**
 * Checks every leaf directory reachable from `root`, level by level, reading through `read`
 * (offset and length within the archive) in coalesced batches of at most 1 MiB (a single
 * larger leaf is read alone). Resolves with what is wrong with the first bad leaf, or
 * undefined; rejects only when `read` does.
 */
export async function leafDirectoryProblem(
  header: PmtilesHeader,
  root: Directory,
  read: (offset: number, length: number) => Promise<Uint8Array>,
): Promise<string | undefined> {
  let level = leafPointers(root);
  for (let depth = 1; level.length > 0; depth++) {
    if (depth > MAX_LEAF_LEVELS) return 'directory chain deeper than the PMTiles spec allows';
    const next = new Map<string, { offset: number; length: number }>();
    for (const batch of batches(level)) {
      const bytes = await read(header.leafDirectoryOffset + batch.offset, batch.length);
      for (const leaf of batch.leaves) {
        const at = leaf.offset - batch.offset;
        const check = checkDirectory(bytes.subarray(at, at + leaf.length), header);
        if (!check.ok) return `leaf at ${leaf.offset}: ${check.detail}`;
        for (const pointer of leafPointers(check.directory))
          next.set(`${pointer.offset}:${pointer.length}`, pointer);
      }
    }
    level = [...next.values()];
  }
  return undefined;
}

interface Window {
  readonly offset: number;
  readonly length: number;
}

/** The distinct leaf windows a directory points to, by offset. */
function leafPointers(dir: Directory): Window[] {
  const windows = new Map<string, Window>();
  for (let i = 0; i < dir.tileIds.length; i++) {
    if (dir.runLengths[i] !== 0) continue;
    const window = { offset: dir.offsets[i]!, length: dir.lengths[i]! };
    windows.set(`${window.offset}:${window.length}`, window);
  }
  return [...windows.values()].sort((a, b) => a.offset - b.offset);
}

/** Groups windows sorted by offset into reads of at most LEAF_BATCH_BYTES (or one leaf). */
function batches(windows: readonly Window[]): Array<Window & { leaves: Window[] }> {
  const out: Array<Window & { leaves: Window[] }> = [];
  let current: (Window & { leaves: Window[] }) | undefined;
  for (const w of windows) {
    const end = w.offset + w.length;
    if (current !== undefined && end - current.offset <= LEAF_BATCH_BYTES) {
      current.leaves.push(w);
      current = {
        offset: current.offset,
        length: Math.max(current.length, end - current.offset),
        leaves: current.leaves,
      };
      out[out.length - 1] = current;
    } else {
      current = { offset: w.offset, length: w.length, leaves: [w] };
      out.push(current);
    }
  }
  return out;
}
