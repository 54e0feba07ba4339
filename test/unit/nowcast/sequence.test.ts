/**
 * A cycle runs only on the frames it needs, exactly one baseline apart: a missing base frame,
 * a gap where the earlier frame should be, or frames of different grids skip the cycle with a
 * reason (for the log and the failure metric), never a forecast from the wrong frames.
 */
import type { Frame } from '../../../src/nowcast/grid';
import { planCycle } from '../../../src/nowcast/sequence';

const STEP = 120_000;
const T0 = Date.UTC(2024, 5, 1, 12, 0);
const frame = (steps: number, width = 4): Frame => ({
  timeMs: T0 + steps * STEP,
  grid: { width, height: 2, values: new Float32Array(width * 2) },
});

it('takes the base frame and the one the baseline before it', () => {
  const frames = [frame(0), frame(1), frame(2), frame(3)];
  const plan = planCycle(frames, T0 + 3 * STEP, STEP, 3);
  expect(plan.ok && [plan.earlier.timeMs, plan.latest.timeMs]).toEqual([T0, T0 + 3 * STEP]);
});

it('a hole between the two frames it needs does not stop the cycle', () => {
  expect(planCycle([frame(0), frame(3)], T0 + 3 * STEP, STEP, 3).ok).toBe(true);
});

it('skips with a reason when the earlier frame is missing (a gap in the sequence)', () => {
  const plan = planCycle([frame(1), frame(2), frame(3)], T0 + 3 * STEP, STEP, 3);
  expect(plan).toEqual({
    ok: false,
    reason: 'missing-earlier-frame',
    detail: 'no frame at 2024-06-01T12:00:00.000Z, 6 min before the base',
  });
});

it('skips with a reason when there is no frame at the base time', () => {
  const plan = planCycle([frame(0), frame(1)], T0 + 3 * STEP, STEP, 3);
  expect(plan).toMatchObject({ ok: false, reason: 'no-base-frame' });
});

it('skips with a reason when the frames are on different grids', () => {
  const plan = planCycle([frame(0, 4), frame(3, 5)], T0 + 3 * STEP, STEP, 3);
  expect(plan).toEqual({ ok: false, reason: 'grid-mismatch', detail: '4x2 and 5x2 grids' });
});
