import { zxyToTileId as referenceTileId } from 'pmtiles';
import { zxyToTileId } from '../../../src/pmtiles/tile-id';
import { createUniformSequence } from '../../../src/sim/noise';

describe('zxyToTileId', () => {
  it('matches the PMTiles spec values for the first zooms', () => {
    expect(zxyToTileId(0, 0, 0)).toBe(0);
    expect(zxyToTileId(1, 0, 0)).toBe(1);
    expect(zxyToTileId(1, 0, 1)).toBe(2);
    expect(zxyToTileId(1, 1, 1)).toBe(3);
    expect(zxyToTileId(1, 1, 0)).toBe(4);
    expect(zxyToTileId(2, 0, 0)).toBe(5);
    expect(zxyToTileId(3, 0, 0)).toBe(21);
    expect(zxyToTileId(20, 0, 0)).toBe(366503875925);
  });

  it('numbers each zoom as a contiguous block 0..4^z-1 after the lower zooms', () => {
    for (let z = 0; z <= 4; z++) {
      const n = 2 ** z;
      const ids = new Set<number>();
      for (let x = 0; x < n; x++) for (let y = 0; y < n; y++) ids.add(zxyToTileId(z, x, y));
      const base = (n * n - 1) / 3;
      expect([...ids].sort((a, b) => a - b)).toEqual(
        Array.from({ length: n * n }, (_, i) => base + i),
      );
    }
  });

  it('agrees with the pmtiles package for random tiles up to z26', () => {
    const random = createUniformSequence(42);
    for (let i = 0; i < 5000; i++) {
      const z = Math.floor(random() * 27);
      const x = Math.floor(random() * 2 ** z);
      const y = Math.floor(random() * 2 ** z);
      expect(zxyToTileId(z, x, y)).toBe(referenceTileId(z, x, y));
    }
    expect(zxyToTileId(26, 2 ** 26 - 1, 0)).toBe(referenceTileId(26, 2 ** 26 - 1, 0));
  });

  it('rejects addresses that do not exist', () => {
    expect(() => zxyToTileId(27, 0, 0)).toThrow(RangeError);
    expect(() => zxyToTileId(-1, 0, 0)).toThrow(RangeError);
    expect(() => zxyToTileId(2, 4, 0)).toThrow(RangeError);
    expect(() => zxyToTileId(2, 0, -1)).toThrow(RangeError);
    expect(() => zxyToTileId(2, 1.5, 0)).toThrow(RangeError);
  });
});
