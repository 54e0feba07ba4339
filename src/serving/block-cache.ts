/**
 * Hot archive cache: a byte-bounded LRU (lru-cache) of aligned archive blocks with
 * single-flight loading, in front of any `ArchiveStore`. Map clients read the same few bytes
 * of the newest archives over and over (16 KiB header and root directory, leaf directories,
 * popular tiles), so small windows are answered from memory as one Buffer; large windows
 * (whole archives, cold bulk reads) still stream from the store untouched.
 */
import { LRUCache } from 'lru-cache';
import type { ArchiveMeta, ArchiveStore, ByteWindow } from '../domain/ports';
import { readWhole } from '../shared/read-whole';

/** Block size: one header read (16 KiB) or a typical tile fits in one block. */
export const BLOCK_BYTES = 64 * 1024;
/** Windows up to this size are served through the cache; larger ones stream. */
export const MAX_CACHED_WINDOW = 4 * BLOCK_BYTES;

export interface CacheEvents {
  onHit?(): void;
  onMiss?(): void;
  onEvict?(bytes: number): void;
}

export interface CachingArchiveStore extends ArchiveStore {
  /** Loads the blocks covering `windows` of an archive (warming on publish). */
  warm(meta: ArchiveMeta, windows: readonly ByteWindow[]): Promise<void>;
  /** Bytes held now. */
  size(): number;
}

interface BlockContext {
  readonly meta: ArchiveMeta;
  readonly index: number;
}

/** Wraps `store` with a block cache of at most `maxBytes` (0 disables caching). */
export function createCachingArchiveStore(
  store: ArchiveStore,
  maxBytes: number,
  events: CacheEvents = {},
): CachingArchiveStore {
  if (maxBytes <= 0) {
    return { ...store, warm: async () => {}, size: () => 0 };
  }
  const blocks = new LRUCache<string, Buffer, BlockContext>({
    maxSize: maxBytes,
    sizeCalculation: (block) => Math.max(1, block.length),
    dispose: (block, _key, reason) => {
      if (reason === 'evict') events.onEvict?.(block.length);
    },
    fetchMethod: async (_key, _stale, { context }) => {
      const { meta, index } = context;
      const offset = index * BLOCK_BYTES;
      const length = Math.min(BLOCK_BYTES, meta.size - offset);
      // Not tied to any one client's signal: other requests may be waiting on this load.
      return readWhole(
        await store.openRange(meta, { offset, length }, new AbortController().signal),
      );
    },
  });

  /** Cache key of a block: by object version (ETag and size), built once per archive. */
  const prefixes = new WeakMap<ArchiveMeta, string>();
  const keyOf = (meta: ArchiveMeta, index: number): string => {
    let prefix = prefixes.get(meta);
    if (prefix === undefined) {
      prefix = `${meta.timestamp}\0${meta.etag}\0${meta.size}\0`;
      prefixes.set(meta, prefix);
    }
    return prefix + index;
  };

  const block = async (meta: ArchiveMeta, index: number): Promise<Buffer> => {
    const status: LRUCache.Status<string, Buffer, BlockContext> = {};
    // Keyed by object version (ETag and size): a republished timestamp never reads the old
    // version's blocks, and a block is only ever filled by a read the store verified against
    // exactly this version.
    const value = await blocks.fetch(keyOf(meta, index), { context: { meta, index }, status });
    if (status.fetch === 'hit') events.onHit?.();
    else events.onMiss?.();
    if (value === undefined) throw new Error('block load returned nothing');
    return value;
  };

  /** The window's bytes from `parts` (its blocks, first to last): a view when one block holds them. */
  const join = (parts: readonly Buffer[], first: number, window: ByteWindow): Buffer => {
    const start = window.offset - first * BLOCK_BYTES;
    if (parts.length === 1) return parts[0]!.subarray(start, start + window.length);
    // Copy only the window, not whole blocks (two 64 KiB blocks for a 16 KiB window).
    const out = Buffer.allocUnsafe(window.length);
    let written = 0;
    let from = start;
    for (const part of parts) {
      written += part.copy(
        out,
        written,
        from,
        Math.min(part.length, from + window.length - written),
      );
      from = 0;
    }
    return out;
  };

  const blockSpan = (window: ByteWindow) => ({
    first: Math.floor(window.offset / BLOCK_BYTES),
    last: Math.floor((window.offset + window.length - 1) / BLOCK_BYTES),
  });

  const slice = async (meta: ArchiveMeta, window: ByteWindow): Promise<Buffer> => {
    const { first, last } = blockSpan(window);
    const parts = await Promise.all(
      Array.from({ length: last - first + 1 }, (_, i) => block(meta, first + i)),
    );
    return join(parts, first, window);
  };

  /** Synchronous hit: every block of the window is in memory (loads in flight do not count). */
  const readCached = (meta: ArchiveMeta, window: ByteWindow): Buffer | undefined => {
    if (window.length > MAX_CACHED_WINDOW || window.length <= 0) return undefined;
    const { first, last } = blockSpan(window);
    const parts: Buffer[] = [];
    for (let index = first; index <= last; index++) {
      const part = blocks.get(keyOf(meta, index));
      if (part === undefined) return undefined;
      parts.push(part);
    }
    for (let i = 0; i < parts.length; i++) events.onHit?.();
    return join(parts, first, window);
  };

  return {
    async openRange(meta, window, signal, owner) {
      if (window.length > MAX_CACHED_WINDOW) return store.openRange(meta, window, signal, owner);
      return readCached(meta, window) ?? slice(meta, window);
    },
    readCached,
    async warm(meta, windows) {
      await Promise.all(windows.map((w) => slice(meta, w)));
    },
    size: () => blocks.calculatedSize,
    probe: () => store.probe(),
    close: () => store.close(),
  };
}
