/**
 * Which observed frames a nowcast cycle uses, and why a cycle cannot run. A cycle needs the
 * frame at its base time and the frame `baselineSteps` steps before it, exactly one step
 * apart each (the motion is a displacement per step); a gap in the sequence, a frame missing
 * at either end, or frames of different grids are reasons to skip, never to guess.
 */
import { sameShape, type Frame } from './grid';

/** Why a cycle was skipped, for logs and metrics. */
export type SkipReason = 'no-base-frame' | 'missing-earlier-frame' | 'grid-mismatch';

/** A cycle's inputs, or the reason it cannot run. */
export type CyclePlan =
  | { readonly ok: true; readonly earlier: Frame; readonly latest: Frame }
  | { readonly ok: false; readonly reason: SkipReason; readonly detail: string };

/**
 * Picks the base frame (time `baseMs`) and the frame `baselineSteps` steps of `stepMs` before
 * it from `frames` (any order). Frames between them are not needed, so a hole there does not
 * stop the cycle; a missing end does.
 */
export function planCycle(
  frames: readonly Frame[],
  baseMs: number,
  stepMs: number,
  baselineSteps: number,
): CyclePlan {
  const byTime = new Map(frames.map((f) => [f.timeMs, f]));
  const latest = byTime.get(baseMs);
  if (!latest)
    return {
      ok: false,
      reason: 'no-base-frame',
      detail: `no frame at ${new Date(baseMs).toISOString()}`,
    };
  const earlierMs = baseMs - baselineSteps * stepMs;
  const earlier = byTime.get(earlierMs);
  if (!earlier)
    return {
      ok: false,
      reason: 'missing-earlier-frame',
      detail: `no frame at ${new Date(earlierMs).toISOString()}, ${(baselineSteps * stepMs) / 60_000} min before the base`,
    };
  if (!sameShape(earlier.grid, latest.grid))
    return {
      ok: false,
      reason: 'grid-mismatch',
      detail: `${earlier.grid.width}x${earlier.grid.height} and ${latest.grid.width}x${latest.grid.height} grids`,
    };
  return { ok: true, earlier, latest };
}
