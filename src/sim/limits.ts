/**
 * The simulator's limits, the one definition that configuration (`RADAR_SIM_*`), the
 * `npm run simulate` flags and the simulator itself all check against, so a value one of them
 * accepts is never refused by another.
 */

/** The accepted range of one integer setting, its default, and a step it must be a multiple of. */
export interface IntegerLimit {
  readonly min: number;
  readonly max: number;
  /** Absent when the default depends on the machine (workers: one per spare core). */
  readonly default?: number;
  readonly step?: number;
}

export const SIM_LIMITS = {
  /** Deepest zoom rendered: 7 is about 1.2 km per pixel at 38 N; 12 is the renderer's limit. */
  maxZoom: { min: 0, max: 12, default: 7 },
  /** Frames published at start, the current one included. */
  backfill: { min: 1, max: 10_000, default: 30 },
  /** Seconds between frames: whole minutes, since timestamps have minute resolution. */
  cadenceS: { min: 60, max: 86_400, default: 120, step: 60 },
  /** Render worker threads. */
  workers: { min: 1, max: 64 },
} as const satisfies Record<string, IntegerLimit>;

export type SimSetting = keyof typeof SIM_LIMITS;

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

/** Throws a RangeError naming `setting` when `value` is outside its limit. */
export function checkSimSetting(setting: SimSetting, value: number): number {
  const problem = limitProblem(SIM_LIMITS[setting], value);
  if (problem !== undefined) throw new RangeError(`${setting} ${problem}, got ${value}`);
  return value;
}
