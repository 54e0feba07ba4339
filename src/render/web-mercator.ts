/**
 * Web-mercator tile maths: degrees to tile coordinates and back, and the tiles that cover a
 * box. The renderer's footprints, its tile ranges and the archive header all use these, so the
 * archive's declared bounds and the tiles it holds agree.
 */
import type { GeoBounds } from '../domain/reflectivity-grid';

/** Tile edge in pixels. */
export const TILE_SIZE = 256;

/** Inclusive tile column/row ranges of one zoom level. */
export interface TileRange {
  readonly z: number;
  readonly minX: number;
  readonly maxX: number;
  readonly minY: number;
  readonly maxY: number;
}

/** Web-mercator tile column of a longitude at zoom `z` (fractional). */
export function lonToTileX(lon: number, z: number): number {
  return ((lon + 180) / 360) * 2 ** z;
}

/** Web-mercator tile row of a latitude at zoom `z` (fractional; 0 at the north edge). */
export function latToTileY(lat: number, z: number): number {
  const rad = (lat * Math.PI) / 180;
  return ((1 - Math.asinh(Math.tan(rad)) / Math.PI) / 2) * 2 ** z;
}

/** Longitude of a fractional tile column. */
export function tileXToLon(x: number, z: number): number {
  return (x / 2 ** z) * 360 - 180;
}

/** Latitude of a fractional tile row. */
export function tileYToLat(y: number, z: number): number {
  return (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** z))) * 180) / Math.PI;
}

/** The tiles of zoom `z` that intersect `bounds`; tiles merely touching an edge are left out. */
export function tileRange(bounds: GeoBounds, z: number): TileRange {
  const last = 2 ** z - 1;
  const clamp = (v: number) => Math.min(last, Math.max(0, v));
  const edge = 1e-9; // a bound exactly on a tile edge belongs to the tile inside it
  return {
    z,
    minX: clamp(Math.floor(lonToTileX(bounds.west, z) + edge)),
    maxX: clamp(Math.ceil(lonToTileX(bounds.east, z) - edge) - 1),
    minY: clamp(Math.floor(latToTileY(bounds.north, z) + edge)),
    maxY: clamp(Math.ceil(latToTileY(bounds.south, z) - edge) - 1),
  };
}

/** Tile ranges for zooms 0..maxZoom, lowest zoom first. */
export function tileRanges(bounds: GeoBounds, maxZoom: number): TileRange[] {
  return Array.from({ length: maxZoom + 1 }, (_, z) => tileRange(bounds, z));
}
