/**
 * The MRMS precipitation type (`PrecipFlag_00.00`) as the renderer's type grid, and the rules
 * that pair a flag frame with a reflectivity frame. A flag that cannot type a frame (not
 * PrecipFlag, another grid, another cycle, not GRIB2 at all) is a problem in words, never a
 * reason to lose the reflectivity: the frame is then published without type.
 */
import { typeGridProblem, type PrecipTypeGrid } from '../../domain/precip-type-grid';
import {
  gridGeometry,
  type GridGeometry,
  type ReflectivityGrid,
} from '../../domain/reflectivity-grid';
import type { Grib2Field } from './grib2/types';

/** GRIB2 codes of MRMS PrecipFlag: discipline 209, category 6, parameter 0. */
const PRECIP_FLAG = { discipline: 209, category: 6, parameter: 0 } as const;

/** MRMS's product and level of the flag, as in its file names and NOAA's bucket folder. */
export const PRECIP_FLAG_PRODUCT = 'PrecipFlag_00.00';

/**
 * Largest gap between a reflectivity frame's valid time and its flag's: MRMS runs both every
 * 2 minutes, the reflectivity stamped to the second (`-120039`), the flag to the cycle
 * (`-120000`); 60 s pairs the same cycle and never a neighbouring one.
 */
export const PAIRING_WINDOW_MS = 60_000;

/** A decoded flag file: its codes and valid time. */
export interface PrecipFlagFrame {
  readonly types: PrecipTypeGrid;
  /** Where the flag's raster lies. */
  readonly geometry: GridGeometry;
  readonly validTimeMs: number;
}

/**
 * The flag of a decoded file, or the reason it is none: its first field must carry the
 * PrecipFlag codes (a file of another product is refused, whatever its name).
 */
export function precipFlagFrame(fields: readonly Grib2Field[]): PrecipFlagFrame | string {
  const field = fields[0];
  if (field === undefined) return 'the file holds no field';
  const { discipline, category, parameter } = field;
  if (
    discipline !== PRECIP_FLAG.discipline ||
    category !== PRECIP_FLAG.category ||
    parameter !== PRECIP_FLAG.parameter
  )
    return (
      `not PrecipFlag: discipline ${discipline} category ${category} parameter ${parameter} ` +
      `(PrecipFlag is 209/6/0)`
    );
  return {
    types: { width: field.grid.width, height: field.grid.height, codes: field.values },
    geometry: gridGeometry(field.grid),
    validTimeMs: field.validTime.getTime(),
  };
}

/**
 * Why `flag` cannot type `grid` (another shape, a raster elsewhere, another cycle), or
 * `undefined` when it pairs.
 */
export function pairingProblem(grid: ReflectivityGrid, flag: PrecipFlagFrame): string | undefined {
  const shape = typeGridProblem(grid, flag.types);
  if (shape !== undefined) return shape;
  const near = (a: number, b: number) => Math.abs(a - b) < 1e-6;
  const g = flag.geometry;
  if (!near(g.west, grid.west) || !near(g.north, grid.north))
    return `the flag grid starts at ${g.west}, ${g.north}, the reflectivity at ${grid.west}, ${grid.north}`;
  if (!near(g.dLon, grid.dLon) || !near(g.dLat, grid.dLat))
    return `the flag grid's cells are ${g.dLon} x ${g.dLat} degrees, the reflectivity's ${grid.dLon} x ${grid.dLat}`;
  const gap = Math.abs(flag.validTimeMs - grid.validTimeMs);
  if (!(gap <= PAIRING_WINDOW_MS))
    return (
      `the flag is valid at ${new Date(flag.validTimeMs).toISOString()}, ` +
      `${Math.round(gap / 1000)} s from the reflectivity (at most ${PAIRING_WINDOW_MS / 1000} s)`
    );
  return undefined;
}
