/**
 * The grids the nowcast reads and writes: one field of one product on a regular grid, row-major
 * (`values[row * width + column]`), in the product's own units. NaN means the value is unknown
 * (no radar coverage, or missing): it is never echo and never "no echo", and it stays apart
 * from both in every step (motion, extrapolation, verification).
 */

/** A field on a `width` x `height` grid; NaN where there is no coverage or the value is missing. */
export interface Grid {
  readonly width: number;
  readonly height: number;
  readonly values: Float32Array;
}

/** A grid observed at `timeMs` (epoch ms UTC). */
export interface Frame {
  readonly timeMs: number;
  readonly grid: Grid;
}

/**
 * How a product's values read as echo strength: `floor` is the weakest value that counts as
 * echo, `ceiling` the strongest the motion estimate tells apart, and `logarithmic` says
 * whether values are rates (mm/h, compared as decibels, 10 log10) or already logarithmic (dBZ).
 * `thresholds` are the two values verification scores at (1 and 5 mm/h, 20 and 35 dBZ).
 */
export interface EchoScale {
  readonly floor: number;
  readonly ceiling: number;
  readonly logarithmic: boolean;
  readonly thresholds: readonly [number, number];
  /** The unit the values are in, for reports. */
  readonly unit: string;
}

/** Rates in mm/h (MRMS PrecipRate and the like): echo from 0.1 mm/h, scored at 1 and 5 mm/h. */
export const RATE_SCALE: EchoScale = Object.freeze({
  floor: 0.1,
  ceiling: 100,
  logarithmic: true,
  thresholds: Object.freeze([1, 5] as const),
  unit: 'mm/h',
});

/** Reflectivity in dBZ (MRMS reflectivity, the simulator): echo from 10 dBZ, scored at 20 and 35. */
export const REFLECTIVITY_SCALE: EchoScale = Object.freeze({
  floor: 10,
  ceiling: 65,
  logarithmic: false,
  thresholds: Object.freeze([20, 35] as const),
  unit: 'dBZ',
});

/** What two grids must share to be compared cell by cell. */
export type GridShape = Pick<Grid, 'width' | 'height'>;

/** Whether two grids have the same shape (the nowcast never mixes grids). */
export function sameShape(a: GridShape, b: GridShape): boolean {
  return a.width === b.width && a.height === b.height;
}
