/**
 * What an MRMS source may send, and so what one file may cost. MRMS's largest domain is CONUS:
 * 7000 x 3500 points at 0.01 degree, 130W-60W, 20N-55N. A file is refused (as bad input,
 * before anything is allocated by a size it declares) when it holds more points than that, or
 * when its grid would render more tiles than the CONUS domain does at the same zoom. With these
 * caps, any input costs at most what a real CONUS mosaic full of echo costs (docs/mrms.md gives
 * the measured ceilings).
 */
import type { GeoBounds } from '../../domain/reflectivity-grid';
import { tileRanges } from '../../render/web-mercator';
import type { Grib2Limits } from './grib2/limits';
import type { LatLonGrid } from './grib2/types';

/** The MRMS CONUS domain: its points and the outer edges of its cells. */
export const MRMS_CONUS = Object.freeze({
  width: 7000,
  height: 3500,
  bounds: Object.freeze({ west: -130, south: 20, east: -60, north: 55 }),
});

/**
 * The GRIB2 reader's caps for MRMS input: one CONUS field of points in all, at most the bytes
 * 32-bit simple packing of it takes (plus 1 MiB of headers) once inflated, and 4 fields.
 */
export const MRMS_GRIB2_LIMITS: Grib2Limits = Object.freeze({
  maxPoints: MRMS_CONUS.width * MRMS_CONUS.height,
  maxInflatedBytes: MRMS_CONUS.width * MRMS_CONUS.height * 4 + 1024 * 1024,
  maxFields: 4,
});

/** Tiles covering `bounds` at zooms 0..maxZoom, as the renderer lays them out. */
export function renderedTiles(bounds: GeoBounds, maxZoom: number): number {
  let tiles = 0;
  for (const r of tileRanges(bounds, maxZoom))
    tiles += Math.max(0, r.maxX - r.minX + 1) * Math.max(0, r.maxY - r.minY + 1);
  return tiles;
}

/**
 * Why `grid` would cost more to render at zooms 0..maxZoom than the CONUS domain does, or
 * `undefined`. Given to the reader, which asks before it decodes the grid's values.
 */
export function mrmsRenderAreaProblem(grid: LatLonGrid, maxZoom: number): string | undefined {
  const tiles = renderedTiles(grid.bounds, maxZoom);
  const cap = renderedTiles(MRMS_CONUS.bounds, maxZoom);
  if (tiles <= cap) return undefined;
  return `grid covering ${grid.bounds.west}..${grid.bounds.east} E, ${grid.bounds.south}..${grid.bounds.north} N renders ${tiles} tiles at zooms 0-${maxZoom}, more than the ${cap} of the MRMS CONUS domain`;
}
