/**
 * PMTiles v3 tile ids: one number per z/x/y, the position on the series of Hilbert curves that
 * starts at z=0. Directories are sorted by it, so the writer's clustering and run-length
 * encoding, and every reader's lookup, depend on this mapping being exactly the PMTiles spec's.
 */

/**
 * Highest zoom whose tile ids stay below 2^53 and so are exact JavaScript numbers (the same
 * limit the `pmtiles` reader enforces).
 */
export const MAX_TILE_ZOOM = 26;

/**
 * Hilbert tile id of tile z/x/y per the PMTiles v3 spec: the count of all tiles of lower zooms,
 * plus the tile's distance along the zoom-z Hilbert curve. Throws `RangeError` for a
 * non-integer input, a zoom outside 0..26 or x/y outside 0..2^z-1, because a wrong id would
 * silently address another tile.
 */
export function zxyToTileId(z: number, x: number, y: number): number {
  if (!Number.isInteger(z) || z < 0 || z > MAX_TILE_ZOOM) {
    throw new RangeError(`tile zoom ${z} outside 0..${MAX_TILE_ZOOM}`);
  }
  const size = 2 ** z;
  if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= size || y >= size) {
    throw new RangeError(`tile ${z}/${x}/${y} outside zoom ${z}`);
  }
  // Tiles of all lower zooms: (4^z - 1) / 3, exact for z <= 26.
  let id = (size * size - 1) / 3;
  let tx = x;
  let ty = y;
  for (let s = size / 2; s >= 1; s /= 2) {
    const rx = tx & s ? 1 : 0;
    const ry = ty & s ? 1 : 0;
    id += s * s * ((3 * rx) ^ ry);
    // Rotate the quadrant so the sub-curve is in canonical orientation (only low bits matter).
    if (ry === 0) {
      if (rx === 1) {
        tx = s - 1 - (tx & (s - 1));
        ty = s - 1 - (ty & (s - 1));
      }
      const t = tx;
      tx = ty;
      ty = t;
    }
  }
  return id;
}
