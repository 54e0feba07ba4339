/**
 * Verification: how well a forecast grid matches the grid observed at its valid time, as the
 * critical success index (CSI = hits / (hits + misses + false alarms)) at a threshold. Only
 * cells known in both grids count: an unknown cell (no coverage, missing) is neither a hit, a
 * miss nor a false alarm, so a forecast is not rewarded or punished for where nobody looked.
 */
import { sameShape, type Grid } from './grid';

/** Counts of a 2 x 2 contingency table at one threshold (correct negatives are not needed). */
export interface Contingency {
  hits: number;
  misses: number;
  falseAlarms: number;
}

/** An empty table. */
export function emptyContingency(): Contingency {
  return { hits: 0, misses: 0, falseAlarms: 0 };
}

/** Adds the table of `forecast` against `observed` at `threshold` (value >= threshold is an event) to `into`. */
export function addContingency(
  into: Contingency,
  forecast: Grid,
  observed: Grid,
  threshold: number,
): Contingency {
  if (!sameShape(forecast, observed)) throw new RangeError('forecast and observation grids differ');
  const f = forecast.values;
  const o = observed.values;
  let hits = 0;
  let misses = 0;
  let falseAlarms = 0;
  for (let i = 0; i < f.length; i++) {
    const fv = f[i]!;
    const ov = o[i]!;
    if (fv !== fv || ov !== ov) continue; // NaN: unknown in either grid
    const fe = fv >= threshold;
    const oe = ov >= threshold;
    if (fe && oe) hits++;
    else if (oe) misses++;
    else if (fe) falseAlarms++;
  }
  into.hits += hits;
  into.misses += misses;
  into.falseAlarms += falseAlarms;
  return into;
}

/** CSI of a table; NaN when there was no event in either grid. */
export function csi(table: Contingency): number {
  const total = table.hits + table.misses + table.falseAlarms;
  return total === 0 ? NaN : table.hits / total;
}
