/**
 * The simulator's limits, the one definition that configuration (`RADAR_SIM_*`), the
 * `npm run simulate` flags and the simulator itself all check against, so a value one of them
 * accepts is never refused by another.
 */
import { type IntegerLimit, limitProblem } from '../shared/integer-limit';

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

/** Throws a RangeError naming `setting` when `value` is outside its limit. */
export function checkSimSetting(setting: SimSetting, value: number): number {
  const problem = limitProblem(SIM_LIMITS[setting], value);
  if (problem !== undefined) throw new RangeError(`${setting} ${problem}, got ${value}`);
  return value;
}
