/**
 * Integer settings with a range: the one check that configuration, the command-line flags and
 * the components behind them apply, so a value one of them accepts is never refused by another.
 * Each source of settings declares its own table of limits (`sim/limits.ts`,
 * `sources/mrms/mrms-settings.ts`) against this shape.
 */

/** The accepted range of one integer setting, its default, and a step it must be a multiple of. */
export interface IntegerLimit {
  readonly min: number;
  readonly max: number;
  /** Absent when the default depends on the machine (workers: one per spare core). */
  readonly default?: number;
  readonly step?: number;
}

/** Why `value` is outside `limit` (undefined when it is inside), for error messages. */
export function limitProblem(limit: IntegerLimit, value: number): string | undefined {
  if (!Number.isInteger(value) || value < limit.min || value > limit.max)
    return `must be an integer in ${limit.min}..${limit.max}`;
  if (limit.step !== undefined && value % limit.step !== 0)
    return `must be a multiple of ${limit.step}`;
  return undefined;
}

/**
 * The integer a command-line flag `--name value` gives, within `limit`; throws an Error naming
 * the flag, the problem and the value as typed (the CLIs print it above their usage).
 */
export function integerFlag(name: string, value: string, limit: IntegerLimit): number {
  const n = Number(value);
  const problem = /^-?[0-9]+$/.test(value) ? limitProblem(limit, n) : 'must be an integer';
  if (problem !== undefined) throw new Error(`--${name} ${problem}, got ${JSON.stringify(value)}`);
  return n;
}
