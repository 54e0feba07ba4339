/**
 * Recoloured tiles, remembered: a byte-bounded LRU (lru-cache) of scheme tiles keyed by the
 * archive version (timestamp, ETag and size, as the block cache keys its blocks), the tile id
 * and the scheme's tag. Map clients ask for the same few hundred tiles of the newest archives
 * over and over, in a scheme as much as plain; without this every one of those requests made a
 * new buffer and copied the tile into it, which (with the garbage it leaves) is what made a
 * scheme tile cost more CPU than a plain one. A hit answers the very bytes the rewrite made the
 * first time, so the answer stays byte-identical; archives are immutable, so an entry never goes
 * stale, and a republished timestamp (another ETag or size) never meets the old version's tiles.
 */
import { LRUCache } from 'lru-cache';
import type { ArchiveMeta } from '../domain/ports';
import type { TileScheme } from './tile-schemes';

/** What the cache reports, for its metrics (`observability/scheme-tile-cache-metrics.ts`). */
export interface SchemeTileCacheEvents {
  onHit?(): void;
  onMiss?(): void;
  onEvict?(bytes: number): void;
}

/** The bytes the scheme tile cache holds by default: thousands of radar tiles of 1-4 KiB. */
export const SCHEME_TILE_CACHE_BYTES = 16 * 1024 * 1024;

export interface SchemeTileCache {
  /** The cache key of tile `tileId` of the archive version `meta` in `scheme`. */
  key(meta: ArchiveMeta, tileId: number, scheme: TileScheme): string;
  /** The recoloured tile under `key`, or undefined (counted as a hit or a miss). */
  get(key: string): Buffer | undefined;
  /**
   * `stored` (the archive's tile) in `scheme`, rewritten now and kept under `key`; throws as
   * `scheme.recolour` does, and then keeps nothing.
   */
  recolour(key: string, scheme: TileScheme, stored: Buffer): Buffer;
  /** Bytes held now. */
  size(): number;
}

/** Options of {@link createSchemeTileCache}. */
export interface SchemeTileCacheOptions {
  /** Bound on the bytes of the tiles held (default {@link SCHEME_TILE_CACHE_BYTES}; 0: none). */
  readonly maxBytes?: number;
  readonly events?: SchemeTileCacheEvents;
}

/**
 * A scheme tile cache of at most `maxBytes` tile bytes; with 0 it keeps nothing (every request
 * rewrites, as before the cache). A tile over an eighth of the bound is rewritten every time
 * rather than evicting an eighth of the hot set.
 */
export function createSchemeTileCache(options: SchemeTileCacheOptions = {}): SchemeTileCache {
  const maxBytes = options.maxBytes ?? SCHEME_TILE_CACHE_BYTES;
  const events = options.events ?? {};
  const prefixes = new WeakMap<ArchiveMeta, string>();
  const key = (meta: ArchiveMeta, tileId: number, scheme: TileScheme): string => {
    let prefix = prefixes.get(meta);
    if (prefix === undefined) {
      prefix = `${meta.timestamp}\0${meta.etag}\0${meta.size}\0`;
      prefixes.set(meta, prefix);
    }
    return `${prefix}${tileId}\0${scheme.tag}`;
  };
  if (maxBytes <= 0) {
    return {
      key,
      get: () => undefined,
      recolour: (_key, scheme, stored) => scheme.recolour(stored),
      size: () => 0,
    };
  }
  const tiles = new LRUCache<string, Buffer>({
    maxSize: maxBytes,
    maxEntrySize: Math.max(1, Math.floor(maxBytes / 8)),
    sizeCalculation: (tile) => Math.max(1, tile.length),
    dispose: (tile, _key, reason) => {
      if (reason === 'evict') events.onEvict?.(tile.length);
    },
  });
  return {
    key,
    get(cacheKey) {
      const tile = tiles.get(cacheKey);
      if (tile === undefined) events.onMiss?.();
      else events.onHit?.();
      return tile;
    },
    recolour(cacheKey, scheme, stored) {
      // The rewrite's Buffer is its own (never a slice of Node's shared pool), so a kept tile
      // holds exactly its own bytes and the bound on bytes is the memory it takes.
      const tile = scheme.recolour(stored);
      tiles.set(cacheKey, tile);
      return tile;
    },
    size: () => tiles.calculatedSize,
  };
}
