/**
 * MRMS files as nowcast input: any 2D MRMS product, under NOAA's names
 * (`MRMS_{Product}_{Level}_{YYYYMMDD-HHMMSS}.grib2[.gz]`) or the same names without the
 * `MRMS_` prefix (as archived copies of the feed are often named). The values keep the
 * product's units; MRMS's markers become NaN where they mean "unknown": -999 (no coverage) in
 * reflectivity, and every negative value of the other products (-3 no coverage, -1 missing;
 * rates, accumulations and the like are never negative). Reflectivity's -99 (covered, no
 * echo) stays as it is: it is a known value below every threshold.
 */
import { RATE_SCALE, REFLECTIVITY_SCALE, type EchoScale, type Frame } from '../../nowcast/grid';
import type { Grib2Field, LatLonGrid } from './grib2/types';
import { parseMrmsFileName, type MrmsFileName } from './mrms-file-name';
import { MrmsProductError } from './mrms-grid';
import { reflectivityProduct } from './mrms-products';

/** The name of a nowcast input file, or `undefined` when the name is not one. */
export function parseNowcastFileName(name: string): MrmsFileName | undefined {
  return (
    parseMrmsFileName(name) ??
    (name.startsWith('MRMS_') ? undefined : parseMrmsFileName(`MRMS_${name}`))
  );
}

/** A decoded input frame: the grid, its product and geometry (to refuse mixtures). */
export interface NowcastInput {
  readonly frame: Frame;
  readonly scale: EchoScale;
  /** The field's codes, e.g. `209/6/1`: frames of different products are never mixed. */
  readonly product: string;
  /** The grid's shape and position, e.g. `7000x3500 54.995,-129.995 0.01x0.01`. */
  readonly geometry: string;
}

function geometryOf(grid: LatLonGrid): string {
  return `${grid.width}x${grid.height} ${grid.north},${grid.west} ${grid.dLat}x${grid.dLon}`;
}

/**
 * The nowcast input of a decoded MRMS file: its first field, at the field's valid time. Throws
 * {@link MrmsProductError} when the file holds no field.
 */
export function mrmsNowcastInput(fields: readonly Grib2Field[], fileName: string): NowcastInput {
  const field = fields[0];
  if (!field) throw new MrmsProductError(fileName, 'the file holds no field');
  const reflectivity =
    reflectivityProduct(field.discipline, field.category, field.parameter) !== undefined;
  const values = field.values;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (reflectivity ? v <= -999 : v < 0) values[i] = NaN;
  }
  return {
    frame: {
      timeMs: field.validTime.getTime(),
      grid: { width: field.grid.width, height: field.grid.height, values },
    },
    scale: reflectivity ? REFLECTIVITY_SCALE : RATE_SCALE,
    product: `${field.discipline}/${field.category}/${field.parameter}`,
    geometry: geometryOf(field.grid),
  };
}
