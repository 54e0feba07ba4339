/**
 * Motion-compensated interpolation: an echo drawn at one place in frame A and moved by the
 * motion in frame B appears in between at intermediate times (not faded in two places), and
 * the motion field's degrees per minute become the right Web Mercator pixels.
 */
import { parseMotionField } from '../../../src/client/motion-field';
import { displacementGrid, warpBlend, type WarpPair } from '../../../web/motion-warp';
import { uniformConusMotion } from '../../fixtures/motion-field';

const W = 64;
const H = 16;

/** An opaque red 4x4 echo with its top-left at (x, 6). */
function frameWithEcho(x: number): Uint8ClampedArray {
  const rgba = new Uint8ClampedArray(W * H * 4);
  for (let y = 6; y < 10; y++)
    for (let i = x; i < x + 4; i++) rgba.set([255, 0, 0, 255], (y * W + i) * 4);
  return rgba;
}

/** Mean x of the pixels with any alpha, and how many there are. */
function echo(rgba: Uint8ClampedArray): { x: number; count: number } {
  let sum = 0;
  let count = 0;
  for (let p = 0; p < W * H; p++)
    if (rgba[p * 4 + 3]! > 0) {
      sum += p % W;
      count++;
    }
  return { x: sum / count, count };
}

const uniform = (mx: number, my: number, block = 8): WarpPair => {
  const n = Math.ceil(W / block) * Math.ceil(H / block);
  return {
    width: W,
    height: H,
    a: frameWithEcho(10),
    b: frameWithEcho(10 + mx),
    block,
    dx: new Float32Array(n).fill(mx),
    dy: new Float32Array(n).fill(my),
  };
};

it('moves an echo along the motion: at t it lies t of the way from A to B, whole', () => {
  const pair = uniform(20, 0);
  const out = new Uint8ClampedArray(W * H * 4);
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    warpBlend(pair, t, out);
    const seen = echo(out);
    expect(seen.x).toBeCloseTo(11.5 + 20 * t, 0);
    expect(seen.count).toBe(16); // one 4x4 echo, not two half-faded ones
  }
  warpBlend(pair, 0.5, out);
  expect([...out.subarray((7 * W + 22) * 4, (7 * W + 22) * 4 + 4)]).toEqual([255, 0, 0, 255]);
});

it('without motion it is a plain cross-fade in place', () => {
  const pair = { ...uniform(0, 0), b: frameWithEcho(40) };
  const out = new Uint8ClampedArray(W * H * 4);
  warpBlend(pair, 0.5, out);
  expect(echo(out).count).toBe(32); // both echoes, each half transparent
  expect(out[(7 * W + 11) * 4 + 3]).toBe(128);
});

it('turns degrees per minute into Web Mercator pixels of the image', () => {
  // 0.02 degrees east and 0.01 north per minute, over 10 minutes, at zoom 4 (4096 px world).
  const field = parseMotionField(uniformConusMotion(0.02, 0.01));
  const image = { z: 4, left: 700, top: 1500, scale: 1, width: 64, height: 64 };
  const { dx, dy } = displacementGrid(field, image, 10, 16);
  expect(dx).toHaveLength(16);
  expect(dx[0]).toBeCloseTo((0.2 / 360) * 4096, 3);
  // Northward is up (negative rows), and a degree of latitude is longer than one of longitude.
  expect(dy[0]!).toBeLessThan(-dx[0]! / 2);
  expect(dy[0]!).toBeGreaterThan(-dx[0]! * 2);
  const half = displacementGrid(field, { ...image, scale: 0.5, width: 32, height: 32 }, 10, 8);
  expect(half.dx[0]).toBeCloseTo(dx[0]! / 2, 3);
});
