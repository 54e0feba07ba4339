/**
 * The surface precipitation type that may ride along a reflectivity grid: MRMS's
 * `PrecipFlag_00.00` codes on the same raster. The renderer reads it only to pick, for each
 * cell with echo, which colour ramp (rain, snow, hail) its dBZ step is drawn in; it never decides
 * where echo is (that is the reflectivity's job).
 */
import type { ReflectivityGrid } from './reflectivity-grid';

/**
 * Precipitation-type codes on the raster of a {@link ReflectivityGrid}: `codes[r * width + c]`
 * is the code of the cell under reflectivity cell (c, r), NOAA's MRMS table:
 *
 * | code | meaning | drawn as |
 * |---|---|---|
 * | -3 | no coverage | rain |
 * | 0 | no precipitation | rain |
 * | 1, 6, 10, 91, 96 | warm stratiform, convective, cold stratiform rain, tropical mixes | rain |
 * | 3 | snow | snow |
 * | 7 | rain mixed with hail | hail |
 *
 * Any other value (a code NOAA may add, NaN) is drawn as rain: the untyped look, which claims
 * nothing. The codes come as decoded (float32), or as an Int8Array of the same codes (the table
 * fits in a byte): a quarter of the memory, which the nowcast keeps and moves a CONUS grid in.
 */
export interface PrecipTypeGrid {
  readonly width: number;
  readonly height: number;
  readonly codes: Float32Array | Int8Array;
}

/** The codes of NOAA's MRMS precipitation-type table, in the table's order. */
export const PRECIP_FLAG_CODES: readonly number[] = Object.freeze([-3, 0, 1, 3, 6, 7, 10, 91, 96]);

/** The flag code of snow. */
export const SNOW_CODE = 3;
/** The flag code of rain mixed with hail. */
export const HAIL_CODE = 7;

/**
 * Position of a code's type in `PRECIP_TYPES` (`rain`, `snow`, `hail`): 1 for snow, 2 for hail,
 * 0 (rain) for everything else. Hot loop: a comparison, no lookup.
 */
export function typeOrdinal(code: number): number {
  return code === SNOW_CODE ? 1 : code === HAIL_CODE ? 2 : 0;
}

/**
 * Why `types` cannot type `grid` (another shape, codes of the wrong length), or `undefined`.
 */
export function typeGridProblem(
  grid: Pick<ReflectivityGrid, 'width' | 'height'>,
  types: PrecipTypeGrid,
): string | undefined {
  if (types.width !== grid.width || types.height !== grid.height)
    return (
      `the type grid is ${types.width} x ${types.height}, ` +
      `the reflectivity grid ${grid.width} x ${grid.height}`
    );
  const kind = Object.prototype.toString.call(types.codes);
  const typedArray = kind === '[object Float32Array]' || kind === '[object Int8Array]';
  if (!typedArray || types.codes.length !== grid.width * grid.height)
    return `type codes must be a Float32Array or Int8Array of ${grid.width * grid.height} cells`;
  return undefined;
}
