import { CONUS_BOUNDS } from '../../../src/sim/field';
import {
  latToTileY,
  lonToTileX,
  tileRange,
  tileRanges,
  tileXToLon,
  tileYToLat,
} from '../../../src/render/web-mercator';

describe('coverage', () => {
  it('converts between degrees and tile coordinates', () => {
    expect(lonToTileX(-180, 3)).toBe(0);
    expect(lonToTileX(0, 3)).toBe(4);
    expect(latToTileY(0, 3)).toBeCloseTo(4, 10);
    expect(tileXToLon(lonToTileX(-96.5, 7), 7)).toBeCloseTo(-96.5, 10);
    expect(tileYToLat(latToTileY(38.25, 7), 7)).toBeCloseTo(38.25, 10);
  });

  it('lists the tiles that cover CONUS at each zoom', () => {
    expect(tileRange(CONUS_BOUNDS, 0)).toEqual({ z: 0, minX: 0, maxX: 0, minY: 0, maxY: 0 });
    // z7: lon -125..-66 is x 19.6..40.5, lat 50..24 is y 43.4..55.2
    expect(tileRange(CONUS_BOUNDS, 7)).toEqual({ z: 7, minX: 19, maxX: 40, minY: 43, maxY: 55 });
    const ranges = tileRanges(CONUS_BOUNDS, 4);
    expect(ranges.map((r) => r.z)).toEqual([0, 1, 2, 3, 4]);
  });

  it('leaves out tiles that only touch a bound', () => {
    // x = 4 starts exactly at lon 0 at zoom 3.
    expect(tileRange({ west: -10, south: -10, east: 0, north: 10 }, 3).maxX).toBe(3);
  });
});
