/**
 * Path parsing for `/tiles/{timestamp}/{z}/{x}/{y}.png`: only canonical decimal integers
 * (no sign, no leading zero, no exponent) address a tile, so every tile has exactly one URL
 * and one cache entry, and no numeric trick reaches another tile.
 */
import { MAX_TILE_ZOOM } from '../pmtiles/tile-id';

export interface TileCoordinates {
  readonly z: number;
  readonly x: number;
  readonly y: number;
}

const CANONICAL = /^(0|[1-9][0-9]{0,8})$/;

/**
 * z/x/y when each is canonical, z is at most 26 (the deepest zoom a PMTiles tile id can
 * address exactly) and x, y lie in 0..2^z-1; otherwise undefined (a 400).
 */
export function parseTileCoordinates(z: string, x: string, y: string): TileCoordinates | undefined {
  if (!CANONICAL.test(z) || !CANONICAL.test(x) || !CANONICAL.test(y)) return undefined;
  const zoom = Number(z);
  if (zoom > MAX_TILE_ZOOM) return undefined;
  const size = 2 ** zoom;
  const col = Number(x);
  const row = Number(y);
  if (col >= size || row >= size) return undefined;
  return { z: zoom, x: col, y: row };
}
