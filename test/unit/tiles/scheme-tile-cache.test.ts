/**
 * The recoloured tile cache: a kept tile is byte for byte what a fresh rewrite of the stored
 * tile gives (and what the first request got); keys name the archive version, the tile and the
 * scheme, so another version, tile or scheme is never answered with a kept tile; the bytes kept
 * stay within the bound (evictions reported, oversized tiles rewritten every time); a tile the
 * rewrite refuses is never kept; and a kept tile owns its memory (no pool slab behind it).
 */
import type { ArchiveMeta } from '../../../src/domain/ports';
import { PaletteMismatchError } from '../../../src/palette/scheme-rewrite';
import { createSchemeTileCache } from '../../../src/tiles/scheme-tile-cache';
import { createTileSchemes, type TileScheme } from '../../../src/tiles/tile-schemes';
import { foreignTile, paletteTile } from '../../fixtures/palette-tiles';

const schemes = createTileSchemes();
const cividis = schemes.get('cividis')!;
const greyDbz = schemes.get('grey-dbz')!;
const meta: ArchiveMeta = {
  timestamp: '202611281200',
  size: 123_456,
  etag: '"abc"',
  lastModified: new Date('2026-11-28T12:00:00Z'),
};
const stored = [0, 1, 2, 3].map(paletteTile);

function counting() {
  const seen = { hits: 0, misses: 0, evicted: [] as number[] };
  return {
    seen,
    events: {
      onHit: () => void seen.hits++,
      onMiss: () => void seen.misses++,
      onEvict: (bytes: number) => void seen.evicted.push(bytes),
    },
  };
}

/** The cache's answer for tile `tileId` of `version` in `scheme`, as the tile answer asks. */
function answer(
  cache: ReturnType<typeof createSchemeTileCache>,
  version: ArchiveMeta,
  tileId: number,
  scheme: TileScheme,
  png: Buffer,
): Buffer {
  const key = cache.key(version, tileId, scheme);
  return cache.get(key) ?? cache.recolour(key, scheme, png);
}

describe('scheme tile cache', () => {
  it('answers a kept tile with the bytes of a fresh rewrite, the same Buffer every time', () => {
    const { seen, events } = counting();
    const cache = createSchemeTileCache({ events });
    const first = answer(cache, meta, 7, cividis, stored[0]!);
    const again = answer(cache, meta, 7, cividis, stored[0]!);
    expect(again).toBe(first);
    expect(again.equals(cividis.recolour(stored[0]!))).toBe(true);
    expect(again.equals(stored[0]!)).toBe(false);
    expect(seen).toEqual({ hits: 1, misses: 1, evicted: [] });
    expect(cache.size()).toBe(first.length);
  });

  it('keys by archive version, tile and scheme: none of them answers with another one', () => {
    const cache = createSchemeTileCache();
    const key = cache.key(meta, 7, cividis);
    const others = [
      cache.key({ ...meta, etag: '"def"' }, 7, cividis),
      cache.key({ ...meta, size: meta.size + 1 }, 7, cividis),
      cache.key({ ...meta, timestamp: '202611281202' }, 7, cividis),
      cache.key(meta, 8, cividis),
      cache.key(meta, 7, greyDbz),
    ];
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
    // The same version read again (a new meta object with the same fields): the same key.
    expect(cache.key({ ...meta }, 7, cividis)).toBe(key);

    // A republished timestamp (new ETag and bytes) gets its own tile, not the kept one.
    const old = answer(cache, meta, 7, cividis, stored[0]!);
    const republished = answer(cache, { ...meta, etag: '"def"' }, 7, cividis, stored[1]!);
    expect(republished.equals(cividis.recolour(stored[1]!))).toBe(true);
    expect(republished.equals(old)).toBe(false);
    const otherScheme = answer(cache, meta, 7, greyDbz, stored[0]!);
    expect(otherScheme.equals(greyDbz.recolour(stored[0]!))).toBe(true);
  });

  it('stays within its bytes, evicting the least recently used tiles', () => {
    const tileBytes = cividis.recolour(stored[0]!).length;
    const { seen, events } = counting();
    const cache = createSchemeTileCache({ maxBytes: tileBytes * 8 + tileBytes / 2, events });
    for (let tileId = 0; tileId < 40; tileId++) answer(cache, meta, tileId, cividis, stored[0]!);
    expect(cache.size()).toBeLessThanOrEqual(tileBytes * 8 + tileBytes / 2);
    expect(cache.size()).toBe(tileBytes * 8);
    expect(seen.evicted).toEqual(Array(32).fill(tileBytes));
    // The newest tiles are kept, the oldest not.
    expect(cache.get(cache.key(meta, 39, cividis))).toBeDefined();
    expect(cache.get(cache.key(meta, 0, cividis))).toBeUndefined();
  });

  it('rewrites a tile over an eighth of the bound every time, without evicting the hot ones', () => {
    const tileBytes = cividis.recolour(stored[0]!).length;
    const cache = createSchemeTileCache({ maxBytes: tileBytes * 4 });
    const bytes = answer(cache, meta, 1, cividis, stored[0]!);
    expect(bytes.equals(cividis.recolour(stored[0]!))).toBe(true);
    expect(cache.size()).toBe(0);
    expect(cache.get(cache.key(meta, 1, cividis))).toBeUndefined();
  });

  it('keeps nothing for a tile the rewrite refuses, nor with a bound of 0', () => {
    const cache = createSchemeTileCache();
    const key = cache.key(meta, 3, cividis);
    expect(() => cache.recolour(key, cividis, foreignTile())).toThrow(PaletteMismatchError);
    expect(cache.get(key)).toBeUndefined();
    expect(cache.size()).toBe(0);

    const none = createSchemeTileCache({ maxBytes: 0 });
    const bytes = answer(none, meta, 1, cividis, stored[2]!);
    expect(bytes.equals(cividis.recolour(stored[2]!))).toBe(true);
    expect(none.get(none.key(meta, 1, cividis))).toBeUndefined();
    expect(none.size()).toBe(0);
  });

  it('a recoloured tile owns its memory: keeping it keeps no pool slab of other buffers', () => {
    for (const png of stored) {
      const bytes = cividis.recolour(png);
      expect(bytes.length).toBeLessThan(Buffer.poolSize / 2);
      expect({ offset: bytes.byteOffset, backing: bytes.buffer.byteLength }).toEqual({
        offset: 0,
        backing: bytes.length,
      });
    }
  });
});
