/**
 * The nowcast on a simulated sequence with a known steady motion (a translation of 2 cells per
 * step where the grid's centre is, and a rotation of 0.4 degrees per step): the estimated
 * motion is within 10 % of the truth where there is echo, and the 30-minute forecast matches
 * the field actually moved there (CSI at least 0.9 at 1 and 5 mm/h).
 */
import { echoImage } from '../../../src/nowcast/echo-image';
import { RATE_SCALE } from '../../../src/nowcast/grid';
import { DEFAULT_NOWCAST_OPTIONS, extrapolate, motionBetween } from '../../../src/nowcast/nowcast';
import { loadOpenCv, type OpenCv } from '../../../src/nowcast/opencv';
import { addContingency, csi, emptyContingency } from '../../../src/nowcast/skill';
import {
  fieldAt,
  frameAt,
  rainCells,
  rotationThrough,
  trueVelocity,
} from '../../fixtures/nowcast-fields';

const WIDTH = 640;
const HEIGHT = 448;
const OMEGA = (0.4 * Math.PI) / 180;
const rotation = rotationThrough(WIDTH / 2, HEIGHT / 2, 2, 0.5, OMEGA);
const cells = rainCells(WIDTH, HEIGHT, 260, 7);
const baseline = DEFAULT_NOWCAST_OPTIONS.baselineSteps;

let cv: OpenCv;
beforeAll(async () => {
  ({ cv } = await loadOpenCv());
});

it('the simulated motion really rotates: velocities differ by over 40 % across the grid', () => {
  const [uTop] = trueVelocity(rotation, WIDTH / 2, 0);
  const [uBottom] = trueVelocity(rotation, WIDTH / 2, HEIGHT - 1);
  expect(Math.abs(uTop - uBottom) / 2).toBeGreaterThan(0.4);
});

it('estimates the motion within 10 % of the truth where there is echo', () => {
  const earlier = frameAt(fieldAt(cells, rotation, -baseline, WIDTH, HEIGHT), -baseline);
  const latest = frameAt(fieldAt(cells, rotation, 0, WIDTH, HEIGHT), 0);
  const motion = motionBetween(cv, earlier, latest, baseline, RATE_SCALE);
  const image = echoImage(latest.grid, RATE_SCALE, motion.factor);
  let error = 0;
  let truth = 0;
  let counted = 0;
  for (let y = 0; y < motion.height; y++)
    for (let x = 0; x < motion.width; x++) {
      const i = y * motion.width + x;
      if (image.pixels[i]! < 40) continue; // about 1 mm/h and more
      const [u, v] = trueVelocity(
        rotation,
        (x + 0.5) * motion.factor - 0.5,
        (y + 0.5) * motion.factor - 0.5,
      );
      error += Math.hypot(motion.u[i]! - u, motion.v[i]! - v);
      truth += Math.hypot(u, v);
      counted++;
    }
  expect(counted).toBeGreaterThan(500);
  expect(error / truth).toBeLessThan(0.1);
});

it('forecasts 30 minutes ahead with CSI >= 0.9 against the field moved there', () => {
  const earlier = frameAt(fieldAt(cells, rotation, -baseline, WIDTH, HEIGHT), -baseline);
  const latest = frameAt(fieldAt(cells, rotation, 0, WIDTH, HEIGHT), 0);
  const motion = motionBetween(cv, earlier, latest, baseline, RATE_SCALE);
  const [forecast] = [...extrapolate(latest.grid, motion, [15])];
  const observed = fieldAt(cells, rotation, 15, WIDTH, HEIGHT);
  const persistence = [emptyContingency(), emptyContingency()];
  for (const [t, threshold] of RATE_SCALE.thresholds.entries()) {
    const score = csi(addContingency(emptyContingency(), forecast!.grid, observed, threshold));
    expect(score).toBeGreaterThanOrEqual(0.9);
    // Holding the field still would not do: the test's motion matters at 30 minutes.
    addContingency(persistence[t]!, latest.grid, observed, threshold);
    expect(csi(persistence[t]!)).toBeLessThan(0.75);
  }
});
