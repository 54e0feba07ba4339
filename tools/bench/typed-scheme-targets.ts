/**
 * The `typed-scheme-tile` runs' names and targets (kept apart from the scenario so the target
 * checks load no service code). The scenario measures every scheme in rounds, each scheme run
 * right after a plain run of the same tiles; a scheme's target is the MEDIAN over the rounds of
 * its pair ratios, so a burst of other work on a shared machine during one run (a ratio of 0.7
 * or 1.5 from one pair) does not decide it.
 */
import { COLOUR_SCHEMES } from '../../src/palette/colour-schemes';
import type { RunRecord, TargetResult } from './results';

/** The scenario's name in `--only` and in the results. */
export const TYPED_SCHEME_TILE = 'typed-scheme-tile';

/** Every scheme of the table, in its order (the default first). */
export const TYPED_BENCH_SCHEMES: readonly string[] = COLOUR_SCHEMES.map((s) => s.id);

/** `against` of a scheme's run in round `round` (from 1). */
export const typedAgainst = (scheme: string, round: number): string =>
  `typed replica, ${scheme}, round ${round}`;

/** `against` of the plain run measured just before a scheme's run. */
export const typedPlainAgainst = (scheme: string, round: number): string =>
  `typed replica, plain (before ${scheme}), round ${round}`;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * Per scheme: req/s of the scheme over the plain run before it, and the plain run's server CPU
 * per request over the scheme's, each the median of the rounds measured (>= 0.9 both).
 * `cpuPerRequestUs` is the results' own measure (passed in: results.ts imports this file).
 */
export function typedSchemeTargets(
  runs: readonly RunRecord[],
  cpuPerRequestUs: (run: RunRecord) => number,
  generator: 'autocannon' | 'wrk',
): TargetResult[] {
  const find = (against: string) =>
    runs.find(
      (r) =>
        r.scenario === TYPED_SCHEME_TILE &&
        r.against === against &&
        (r.generator ?? 'autocannon') === generator,
    );
  const suffix = generator === 'wrk' ? ' [wrk]' : '';
  const out: TargetResult[] = [];
  for (const scheme of TYPED_BENCH_SCHEMES) {
    const pairs: Array<{ rps: number; cost: number; text: string }> = [];
    for (let round = 1; ; round++) {
      const s = find(typedAgainst(scheme, round));
      const b = find(typedPlainAgainst(scheme, round));
      if (!s || !b) break;
      const [su, bu] = [cpuPerRequestUs(s), cpuPerRequestUs(b)];
      pairs.push({
        rps: s.result.rps / b.result.rps,
        cost: bu / su,
        text: `${s.result.rps} vs ${b.result.rps} req/s, ${su.toFixed(0)} vs ${bu.toFixed(0)} µs/req`,
      });
    }
    if (pairs.length === 0) continue;
    const rounds = `median of ${pairs.length} round${pairs.length > 1 ? 's' : ''}`;
    const rps = median(pairs.map((p) => p.rps));
    const cost = median(pairs.map((p) => p.cost));
    const each = pairs.map((p, i) => `${i + 1}: ${p.text}`).join('; ');
    out.push(
      {
        name: `typed scheme tile direct, ${scheme}${suffix}`,
        requirement: `>= 0.9 x the same typed tiles plain, measured just before (req/s, ${rounds})`,
        measured: `${pairs.map((p) => p.rps.toFixed(2)).join(', ')} (${each})`,
        value: rps,
        limit: 0.9,
        met: rps >= 0.9,
      },
      {
        name: `typed scheme tile direct, ${scheme}, CPU cost${suffix}`,
        requirement: `plain server CPU per request / the scheme's >= 0.9 (${rounds})`,
        measured: pairs.map((p) => p.cost.toFixed(2)).join(', '),
        value: cost,
        limit: 0.9,
        met: cost >= 0.9,
      },
    );
  }
  return out;
}
