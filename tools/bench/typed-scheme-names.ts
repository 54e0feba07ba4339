/**
 * Names of the `typed-scheme-tile` runs, shared by the scenario and the targets (kept apart
 * from the scenario so the target checks load no service code).
 */
import { COLOUR_SCHEMES } from '../../src/palette/colour-schemes';

/** The scenario's name in `--only` and in the results. */
export const TYPED_SCHEME_TILE = 'typed-scheme-tile';

/** Every scheme of the table, in its order (the default first). */
export const TYPED_BENCH_SCHEMES: readonly string[] = COLOUR_SCHEMES.map((s) => s.id);

/** `against` of a scheme's run. */
export const typedAgainst = (scheme: string): string => `typed replica, ${scheme}`;

/** `against` of the plain run measured just before a scheme's run. */
export const typedPlainAgainst = (scheme: string): string =>
  `typed replica, plain (before ${scheme})`;
