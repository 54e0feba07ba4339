/**
 * No coverage is never echo and never "no echo": a forecast cell whose trajectory starts
 * outside radar coverage, or outside the grid, is NaN; covered cells without echo stay 0; the
 * motion estimate reads unknown cells as no echo (a still coverage edge does not hold moving
 * echoes back); verification leaves unknown cells out.
 */
import { echoImage } from '../../../src/nowcast/echo-image';
import { advect, backwardDisplacements } from '../../../src/nowcast/extrapolate';
import { RATE_SCALE, REFLECTIVITY_SCALE, type Grid } from '../../../src/nowcast/grid';
import type { MotionField } from '../../../src/nowcast/motion';
import { addContingency, csi, emptyContingency } from '../../../src/nowcast/skill';

const WIDTH = 96;
const HEIGHT = 64;
const FACTOR = 8;

/** A uniform motion of (u, v) cells per step. */
function uniformMotion(u: number, v: number): MotionField {
  const width = WIDTH / FACTOR;
  const height = HEIGHT / FACTOR;
  return {
    width,
    height,
    factor: FACTOR,
    u: new Float32Array(width * height).fill(u),
    v: new Float32Array(width * height).fill(v),
  };
}

/** Columns 0..29 without coverage (NaN), 0 elsewhere, and a 10 mm/h block at columns 40..49. */
function gridWithCoverageEdge(): Grid {
  const values = new Float32Array(WIDTH * HEIGHT);
  for (let y = 0; y < HEIGHT; y++)
    for (let x = 0; x < WIDTH; x++)
      values[y * WIDTH + x] = x < 30 ? NaN : x >= 40 && x < 50 && y >= 20 && y < 40 ? 10 : 0;
  return { width: WIDTH, height: HEIGHT, values };
}

const at = (g: Grid, x: number, y: number) => g.values[y * WIDTH + x]!;

it('a trajectory that starts outside coverage gives NaN, one inside gives its value', () => {
  const motion = uniformMotion(2, 0); // eastward, 2 cells per step
  const [after5] = backwardDisplacements(motion, [5]); // 10 cells back
  const forecast = advect(gridWithCoverageEdge(), after5!);
  // Cells 30..39 now read columns 20..29: no coverage there, so no coverage here.
  for (let x = 30; x < 40; x++) expect(at(forecast, x, 30)).toBeNaN();
  // Cells 40..49 read the covered, echo-free columns 30..39: known, no echo.
  for (let x = 40; x < 50; x++) expect(at(forecast, x, 30)).toBe(0);
  // The echo block moved 10 cells east.
  for (let x = 50; x < 60; x++) expect(at(forecast, x, 30)).toBe(10);
  expect(at(forecast, 60, 30)).toBe(0);
  // Rows outside the block stay covered and echo-free.
  expect(at(forecast, 55, 5)).toBe(0);
});

it('a trajectory that starts outside the grid gives NaN (no coverage), not 0', () => {
  const values = new Float32Array(WIDTH * HEIGHT); // all covered, all 0
  const motion = uniformMotion(-3, 1); // west and south
  const [after4] = backwardDisplacements(motion, [4]); // started 12 cells east, 4 north
  const forecast = advect({ width: WIDTH, height: HEIGHT, values }, after4!);
  expect(at(forecast, WIDTH - 1, 30)).toBeNaN(); // from column 107
  expect(at(forecast, WIDTH - 12, 30)).toBeNaN(); // from column 96, just outside
  expect(at(forecast, WIDTH - 13, 30)).toBe(0); // from column 95, the last
  expect(at(forecast, 40, 2)).toBeNaN(); // from row -2
  expect(at(forecast, 40, 4)).toBe(0); // from row 0
});

it('the echo image reads unknown cells and cells below the floor as no echo', () => {
  const grid: Grid = {
    width: 4,
    height: 2,
    values: Float32Array.from([NaN, NaN, 0.05, 100, NaN, 0, 1, 1000]),
  };
  const image = echoImage(grid, RATE_SCALE, 1);
  expect([...image.pixels]).toEqual([0, 0, 0, 255, 0, 0, 85, 255]);
  const blocks = echoImage(grid, RATE_SCALE, 2);
  expect([...blocks.pixels]).toEqual([0, Math.round((255 + 85 + 255) / 4)]);
  const dbz: Grid = { width: 3, height: 1, values: Float32Array.from([-99, NaN, 65]) };
  expect([...echoImage(dbz, REFLECTIVITY_SCALE, 1).pixels]).toEqual([0, 0, 255]);
});

it('verification leaves out cells unknown in the forecast or the observation', () => {
  const forecast: Grid = { width: 4, height: 1, values: Float32Array.from([5, NaN, 5, 0]) };
  const observed: Grid = { width: 4, height: 1, values: Float32Array.from([5, 5, NaN, 5]) };
  const table = addContingency(emptyContingency(), forecast, observed, 1);
  expect(table).toEqual({ hits: 1, misses: 1, falseAlarms: 0 });
  expect(csi(table)).toBe(0.5);
  expect(csi(emptyContingency())).toBeNaN();
});
