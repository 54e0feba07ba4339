/**
 * Hot archive cache: a byte-bounded LRU (lru-cache) of aligned archive blocks with
 * single-flight loading, in front of any `ArchiveStore`. Map clients read the same few bytes
 * of the newest archives over and over (16 KiB header and root directory, leaf directories,
 * popular tiles), so small windows are answered from memory as one Buffer; large windows
 * (whole archives, cold bulk reads) still stream from the store untouched.
 */
import { Readable } from 'node:stream';
import { LRUCache } from 'lru-cache';
import type { ArchiveBody, ArchiveMeta, ArchiveStore, ByteWindow } from '../domain/ports';

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

async function readAll(body: ArchiveBody): Promise<Buffer> {
  if (Buffer.isBuffer(body)) return body;
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
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
      return readAll(await store.openRange(meta, { offset, length }, new AbortController().signal));
    },
  });

  const block = async (meta: ArchiveMeta, index: number): Promise<Buffer> => {
    const status: LRUCache.Status<string, Buffer, BlockContext> = {};
    // Keyed by object version (ETag and size): a republished timestamp never reads the old
    // version's blocks, and a block is only ever filled by a read the store verified against
    // exactly this version.
    const key = `${meta.timestamp}\0${meta.etag}\0${meta.size}\0${index}`;
    const value = await blocks.fetch(key, { context: { meta, index }, status });
    if (status.fetch === 'hit') events.onHit?.();
    else events.onMiss?.();
    if (value === undefined) throw new Error('block load returned nothing');
    return value;
  };

  const slice = async (meta: ArchiveMeta, window: ByteWindow): Promise<Buffer> => {
    const first = Math.floor(window.offset / BLOCK_BYTES);
    const last = Math.floor((window.offset + window.length - 1) / BLOCK_BYTES);
    const parts = await Promise.all(
      Array.from({ length: last - first + 1 }, (_, i) => block(meta, first + i)),
    );
    const joined = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const start = window.offset - first * BLOCK_BYTES;
    return joined.subarray(start, start + window.length);
  };

  return {
    async openRange(meta, window, signal, owner) {
      if (window.length > MAX_CACHED_WINDOW) return store.openRange(meta, window, signal, owner);
      return slice(meta, window);
    },
    async warm(meta, windows) {
      await Promise.all(windows.map((w) => slice(meta, w)));
    },
    size: () => blocks.calculatedSize,
    probe: () => store.probe(),
    close: () => store.close(),
  };
}

/** A Readable over a buffer, for callers that need a stream. */
export function bufferStream(buffer: Buffer): Readable {
  return Readable.from([buffer], { objectMode: false });
}
