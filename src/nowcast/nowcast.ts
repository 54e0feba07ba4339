/**
 * The nowcast, grid in, grids out: the motion of the echoes between an earlier frame and the
 * latest, and the latest grid extrapolated along it to each lead. Pure computation (no I/O);
 * the caller reads the frames and writes or publishes the forecasts, one lead at a time so
 * that only one full-resolution forecast is held at once.
 */
import { echoImage } from './echo-image';
import { advect, backwardDisplacements } from './extrapolate';
import type { EchoScale, Frame, Grid } from './grid';
import {
  DEFAULT_MOTION_OPTIONS,
  estimateMotion,
  type MotionField,
  type MotionOptions,
} from './motion';
import type { OpenCv } from './opencv';

/** The nowcast's settings; see docs/nowcast.md for how they were chosen. */
export interface NowcastOptions {
  /** Full-resolution cells per motion-grid cell along each axis. */
  readonly factor: number;
  /** Time steps between the earlier frame and the latest that the motion is measured over. */
  readonly baselineSteps: number;
  readonly motion: MotionOptions;
}

export const DEFAULT_NOWCAST_OPTIONS: NowcastOptions = Object.freeze({
  factor: 4,
  baselineSteps: 5,
  motion: DEFAULT_MOTION_OPTIONS,
});

/** One forecast: `steps` time steps after the base, and its grid. */
export interface Forecast {
  readonly steps: number;
  readonly grid: Grid;
}

/** The motion measured from `earlier` to `latest`, `steps` steps apart. */
export function motionBetween(
  cv: OpenCv,
  earlier: Frame,
  latest: Frame,
  steps: number,
  scale: EchoScale,
  options: NowcastOptions = DEFAULT_NOWCAST_OPTIONS,
): MotionField {
  return estimateMotion(
    cv,
    echoImage(earlier.grid, scale, options.factor),
    echoImage(latest.grid, scale, options.factor),
    steps,
    options.motion,
  );
}

/**
 * The forecasts of `latest` along `motion` at each lead (time steps, ascending, positive),
 * produced lazily in that order.
 */
export function* extrapolate(
  latest: Grid,
  motion: MotionField,
  leads: readonly number[],
): Generator<Forecast> {
  for (let i = 1; i < leads.length; i++)
    if (!(leads[i]! > leads[i - 1]!)) throw new RangeError('leads must be ascending');
  if (leads.some((l) => !Number.isInteger(l) || l < 1))
    throw new RangeError('leads must be positive whole steps');
  const displacements = backwardDisplacements(motion, leads);
  for (let i = 0; i < leads.length; i++)
    yield { steps: leads[i]!, grid: advect(latest, displacements[i]!) };
}
