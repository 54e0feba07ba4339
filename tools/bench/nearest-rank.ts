/**
 * Nearest-rank percentile of a sorted sample: always one of the measured values (no
 * interpolation), so a reported p99 is a delay that really happened.
 */

/** The `p`-th percentile (0..100) of `sorted` (ascending), or NaN for an empty sample. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
