/**
 * An observed grid reduced to what verification needs, four cells to a byte: unknown, below
 * the lower threshold, between the thresholds, at or above the upper one. A 7000 x 3500 frame
 * takes 6 MB instead of 98, so a whole verification sequence stays in memory.
 */
import { sameShape, type Grid } from './grid';
import type { Contingency } from './skill';

/** Classes of a grid at two ascending thresholds. */
export interface ObservedClasses {
  readonly width: number;
  readonly height: number;
  readonly packed: Uint8Array;
}

const UNKNOWN = 0;

/** The class of a value: 0 unknown, 1 below `low`, 2 below `high`, 3 at or above `high`. */
function classOf(value: number, low: number, high: number): number {
  if (value !== value) return UNKNOWN;
  return value >= high ? 3 : value >= low ? 2 : 1;
}

/** Classifies `grid` at `thresholds` (ascending). */
export function classify(grid: Grid, thresholds: readonly [number, number]): ObservedClasses {
  const [low, high] = thresholds;
  const packed = new Uint8Array(Math.ceil(grid.values.length / 4));
  const values = grid.values;
  for (let i = 0; i < values.length; i++)
    packed[i >> 2] = packed[i >> 2]! | (classOf(values[i]!, low, high) << ((i & 3) * 2));
  return { width: grid.width, height: grid.height, packed };
}

/**
 * Adds `forecast` against `observed` to one table per threshold (`tables[0]` the lower);
 * cells unknown in either are left out.
 */
export function addAgainstClasses(
  tables: readonly [Contingency, Contingency],
  forecast: Grid,
  observed: ObservedClasses,
  thresholds: readonly [number, number],
): void {
  if (!sameShape(forecast, observed)) throw new RangeError('forecast and observation grids differ');
  const [low, high] = thresholds;
  const counts = new Float64Array(6); // hits, misses, false alarms at low, then at high
  const values = forecast.values;
  for (let i = 0; i < values.length; i++) {
    const o = (observed.packed[i >> 2]! >> ((i & 3) * 2)) & 3;
    const f = classOf(values[i]!, low, high);
    if (o === UNKNOWN || f === UNKNOWN) continue;
    for (let t = 0; t < 2; t++) {
      const level = t + 2;
      const fe = f >= level;
      const oe = o >= level;
      if (fe && oe) counts[3 * t]!++;
      else if (oe) counts[3 * t + 1]!++;
      else if (fe) counts[3 * t + 2]!++;
    }
  }
  for (let t = 0; t < 2; t++) {
    tables[t]!.hits += counts[3 * t]!;
    tables[t]!.misses += counts[3 * t + 1]!;
    tables[t]!.falseAlarms += counts[3 * t + 2]!;
  }
}
