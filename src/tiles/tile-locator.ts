/**
 * Finds tiles inside published archives, reading through the same `ArchiveStore` (and so the
 * same block cache) as range requests. Decoded headers, directories and metadata are cached
 * per archive *version* (timestamp + ETag), so a hot tile costs a few map lookups, one binary
 * search and one block-cache slice: no decompression and no parsing per request. Loads are
 * single-flight, so a burst of first requests for a new frame decodes each directory once.
 */
import { LRUCache } from 'lru-cache';
import { ArchiveFormatError, type ArchiveFormatReason } from '../domain/archive-errors';
import type { ArchiveMeta, ArchiveStore, ByteWindow } from '../domain/ports';
import {
  decodeDirectory,
  decompressInternal,
  DirectoryFormatError,
  findTile,
  type Directory,
} from '../pmtiles/directory-reader';
import {
  MAX_SECTION_OUTPUT_BYTES,
  MetadataFormatError,
  parseMetadataSection,
} from '../pmtiles/archive-check';
import { HEADER_BYTES, decodeHeader, type PmtilesHeader } from '../pmtiles/header';
import { readWhole } from '../shared/read-whole';

/** Deepest directory chain the PMTiles spec allows readers to follow (root + 3 leaf levels). */
const MAX_DEPTH = 4;

export interface TileLocatorOptions {
  readonly store: ArchiveStore;
  /** Archive versions whose header and metadata stay decoded. Default 256. */
  readonly maxArchives?: number;
  /** Bytes of decoded directories kept (entries × 32). Default 64 MiB. */
  readonly maxDirectoryBytes?: number;
  /**
   * Called when a published archive's own bytes turn out unreadable (the lookup then rejects
   * with `ArchiveFormatError`): for metrics and to report the archive for re-validation.
   */
  readonly onFormatError?: (meta: ArchiveMeta, reason: ArchiveFormatReason) => void;
}

/**
 * Every lookup rejects with `ArchiveFormatError` when the archive's bytes are not readable
 * PMTiles where it needs them, and with the store's own errors when a read fails.
 */
export interface TileLocator {
  /** The decoded header of an archive version. */
  header(meta: ArchiveMeta): Promise<PmtilesHeader>;
  /** Absolute byte window of tile `tileId`, or undefined when the archive holds none. */
  locate(meta: ArchiveMeta, tileId: number): Promise<ByteWindow | undefined>;
  /**
   * `header` and `locate` answered from memory alone, or undefined when a load (or an error
   * the async calls would report) is needed: lets the core answer hot tiles without a
   * promise.
   */
  peek(meta: ArchiveMeta, tileId: number): LocatedTile | undefined;
  /** The archive's JSON metadata object (`{}` when absent or not an object). */
  metadata(meta: ArchiveMeta): Promise<Readonly<Record<string, unknown>>>;
}

/** A tile found from memory: the archive's header and the tile's window (none: no tile). */
export interface LocatedTile {
  readonly header: PmtilesHeader;
  readonly window: ByteWindow | undefined;
}

/**
 * The directory chain from the root to tile `tileId`, one walk for the async and the
 * from-memory lookups: it yields the window of each directory it needs and receives that
 * directory, and returns the tile's window (undefined: no such tile).
 */
function* directoryWalk(
  meta: ArchiveMeta,
  h: PmtilesHeader,
  tileId: number,
): Generator<ByteWindow, ByteWindow | undefined, Directory> {
  let window: ByteWindow = { offset: h.rootDirectoryOffset, length: h.rootDirectoryLength };
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const found = findTile(yield window, tileId);
    if (found === undefined) return undefined;
    if (!found.leaf) {
      const offset = h.tileDataOffset + found.offset;
      if (offset + found.length > meta.size) {
        throw new DirectoryFormatError('tile extends past the end of the archive');
      }
      return { offset, length: found.length };
    }
    window = { offset: h.leafDirectoryOffset + found.offset, length: found.length };
  }
  throw new DirectoryFormatError('directory chain deeper than the PMTiles spec allows');
}

interface Load {
  readonly meta: ArchiveMeta;
  readonly header?: PmtilesHeader;
  readonly window?: ByteWindow;
}

const versionKey = (meta: ArchiveMeta): string => `${meta.timestamp}\0${meta.etag}`;

export function createTileLocator(options: TileLocatorOptions): TileLocator {
  const { store } = options;
  /** Turns a format problem into the core's error (reported); other errors pass unchanged. */
  const formatError = (err: unknown, meta: ArchiveMeta, reason: ArchiveFormatReason): unknown => {
    if (!(err instanceof DirectoryFormatError)) return err;
    options.onFormatError?.(meta, reason);
    return new ArchiveFormatError(reason, err.message);
  };
  const read = async (meta: ArchiveMeta, window: ByteWindow): Promise<Buffer> => {
    if (window.offset + window.length > meta.size) {
      throw new DirectoryFormatError('section extends past the end of the archive');
    }
    if (window.length === 0) return Buffer.alloc(0);
    return readWhole(await store.openRange(meta, window, new AbortController().signal));
  };

  const headers = new LRUCache<string, PmtilesHeader, Load>({
    max: options.maxArchives ?? 256,
    fetchMethod: async (_key, _stale, { context }) => {
      const head = await read(context.meta, {
        offset: 0,
        length: Math.min(HEADER_BYTES, context.meta.size),
      });
      let header: PmtilesHeader;
      try {
        header = decodeHeader(head);
      } catch (err) {
        throw new DirectoryFormatError((err as Error).message);
      }
      if (header.specVersion !== 3) throw new DirectoryFormatError('not a PMTiles v3 archive');
      return header;
    },
  });
  const directories = new LRUCache<string, Directory, Load>({
    maxSize: options.maxDirectoryBytes ?? 64 * 1024 * 1024,
    sizeCalculation: (dir) => Math.max(1, dir.tileIds.length * 32),
    fetchMethod: async (_key, _stale, { context }) => {
      const raw = await read(context.meta, context.window!);
      const compression = context.header!.internalCompression;
      return decodeDirectory(decompressInternal(raw, compression, MAX_SECTION_OUTPUT_BYTES));
    },
  });
  const metadataCache = new LRUCache<string, Readonly<Record<string, unknown>>, Load>({
    max: options.maxArchives ?? 256,
    fetchMethod: async (_key, _stale, { context }) => {
      const header = context.header!;
      if (header.jsonMetadataLength === 0) return {};
      const raw = await read(context.meta, {
        offset: header.jsonMetadataOffset,
        length: header.jsonMetadataLength,
      });
      try {
        return parseMetadataSection(raw, header.internalCompression);
      } catch (err) {
        // Metadata that is not a JSON object describes nothing; tiles stay readable.
        if (err instanceof MetadataFormatError) return {};
        throw err;
      }
    },
  });

  const header = async (meta: ArchiveMeta): Promise<PmtilesHeader> => {
    let value: PmtilesHeader | undefined;
    try {
      value = await headers.fetch(versionKey(meta), { context: { meta } });
    } catch (err) {
      throw formatError(err, meta, 'header');
    }
    if (value === undefined) throw new Error('header load returned nothing');
    return value;
  };

  const directoryKey = (meta: ArchiveMeta, window: ByteWindow): string =>
    `${versionKey(meta)}\0${window.offset}\0${window.length}`;
  const directory = async (
    meta: ArchiveMeta,
    h: PmtilesHeader,
    window: ByteWindow,
  ): Promise<Directory> => {
    const key = directoryKey(meta, window);
    const value = await directories.fetch(key, { context: { meta, header: h, window } });
    if (value === undefined) throw new Error('directory load returned nothing');
    return value;
  };

  return {
    header,
    async locate(meta, tileId) {
      const h = await header(meta);
      const walk = directoryWalk(meta, h, tileId);
      // The directory being read or followed: 0 is the root, any deeper one a leaf.
      let level = 0;
      try {
        let step = walk.next();
        while (!step.done) {
          step = walk.next(await directory(meta, h, step.value));
          level += 1;
        }
        return step.value;
      } catch (err) {
        throw formatError(err, meta, level === 0 ? 'root-directory' : 'leaf-directory');
      }
    },
    peek(meta, tileId) {
      const h = headers.get(versionKey(meta));
      if (h === undefined) return undefined;
      try {
        const walk = directoryWalk(meta, h, tileId);
        let step = walk.next();
        while (!step.done) {
          const dir = directories.get(directoryKey(meta, step.value));
          if (dir === undefined) return undefined;
          step = walk.next(dir);
        }
        return { header: h, window: step.value };
      } catch {
        return undefined; // a malformed archive: the async lookup reports it
      }
    },
    async metadata(meta) {
      const h = await header(meta);
      try {
        const value = await metadataCache.fetch(versionKey(meta), { context: { meta, header: h } });
        return value ?? {};
      } catch (err) {
        throw formatError(err, meta, 'metadata');
      }
    },
  };
}
