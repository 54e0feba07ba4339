/**
 * Scanning mode (flag table 3.4) of a regular grid, and the one reordering that turns the
 * file's point order into the canonical one (row 0 northernmost, west to east). Every
 * combination of the four ordering flags is honoured: -i (east to west), +j (south to north),
 * j consecutive (points run down columns), and boustrophedon (every other row, or column,
 * reversed). Staggered grids (flags 5-7) are refused.
 */
import type { Fail } from './grib2-error';

/** The ordering flags of one grid. */
export interface ScanningMode {
  /** The raw flag octet. */
  readonly flags: number;
  /** Flag 1: points of a row run east to west. */
  readonly iNegative: boolean;
  /** Flag 2: rows run south to north. */
  readonly jPositive: boolean;
  /** Flag 3: consecutive points run along a column (j) rather than a row (i). */
  readonly jConsecutive: boolean;
  /** Flag 4: adjacent rows (or columns, with flag 3) run in opposite directions. */
  readonly boustrophedon: boolean;
  /** True when the file's order already is the canonical one (mode 0). */
  readonly canonical: boolean;
}

/** Parses the scanning-mode octet; staggered (offset) grids are not regular and fail. */
export function readScanningMode(flags: number, fail: Fail): ScanningMode {
  if ((flags & 0x0e) !== 0) {
    fail(`section 3: scanning mode 0x${flags.toString(16)} (staggered rows) is not supported`);
  }
  const mode = {
    flags,
    iNegative: (flags & 0x80) !== 0,
    jPositive: (flags & 0x40) !== 0,
    jConsecutive: (flags & 0x20) !== 0,
    boustrophedon: (flags & 0x10) !== 0,
  };
  return {
    ...mode,
    canonical: !mode.iNegative && !mode.jPositive && !mode.jConsecutive && !mode.boustrophedon,
  };
}

/**
 * Returns `stored` (the file's order) in canonical order: the same array when the mode is
 * already canonical, otherwise a new one. The file's k-th point is the `inner`-th point of its
 * `outer`-th run (a run is a row, or a column with flag 3); each run is placed by its start
 * and step in the canonical array, so the loop does no per-point branching.
 */
export function toCanonicalOrder(
  stored: Float32Array,
  width: number,
  height: number,
  mode: ScanningMode,
): Float32Array {
  if (mode.canonical) return stored;
  const out = new Float32Array(stored.length);
  // Canonical column of the file's i, and canonical row of the file's j.
  const column = (i: number) => (mode.iNegative ? width - 1 - i : i);
  const row = (j: number) => (mode.jPositive ? height - 1 - j : j);
  const runLength = mode.jConsecutive ? height : width;
  const runs = mode.jConsecutive ? width : height;
  for (let outer = 0; outer < runs; outer++) {
    const reversed = mode.boustrophedon && outer % 2 === 1;
    const first = reversed ? runLength - 1 : 0; // i (or j) of the run's first point
    const along = reversed ? -1 : 1; // its direction along the run
    let start: number;
    let step: number;
    if (mode.jConsecutive) {
      start = row(first) * width + column(outer);
      step = (mode.jPositive ? -along : along) * width;
    } else {
      start = row(outer) * width + column(first);
      step = mode.iNegative ? -along : along;
    }
    const base = outer * runLength;
    for (let inner = 0; inner < runLength; inner++) {
      out[start + inner * step] = stored[base + inner]!;
    }
  }
  return out;
}
