/**
 * The motion field a forecast archive carries: at most 128 columns, int8 base64 at one
 * scale, degrees per minute with v NORTHWARD (the nowcast's own field counts rows south),
 * and a geometry whose cell centres are where the motion was measured.
 */
import {
  decodeMotionComponent,
  encodeMotion,
  MAX_MOTION_COLUMNS,
} from '../../../src/nowcast/motion-encoding';
import type { MotionField } from '../../../src/nowcast/motion';

/** The MRMS CONUS mosaic's geometry (cell centres of row 0 / column 0). */
const CONUS = { west: -129.995, north: 54.995, dLon: 0.01, dLat: 0.01 };

function field(width: number, height: number, u: (x: number) => number, v: number): MotionField {
  const us = new Float32Array(width * height);
  const vs = new Float32Array(width * height).fill(v);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) us[y * width + x] = u(x);
  return { width, height, factor: 4, u: us, v: vs };
}

it('a CONUS field (1,750 motion columns) becomes 125 x 63 cells, degrees per minute, v northward', () => {
  // 2 cells per 2-minute step eastward, 1 cell per step southward.
  const encoded = encodeMotion(
    field(1750, 875, () => 2, 1),
    CONUS,
    2,
  );
  expect(encoded).toMatchObject({
    encoding: 'int8-base64',
    width: 125,
    height: 63,
    unit: 'degrees per minute',
  });
  expect(encoded.width).toBeLessThanOrEqual(MAX_MOTION_COLUMNS);
  // Outer edges of the grid, cells of 14 motion cells of 4 grid cells.
  expect(encoded.west).toBeCloseTo(-130, 9);
  expect(encoded.north).toBeCloseTo(55, 9);
  expect(encoded.dLon).toBeCloseTo(0.56, 9);
  expect(encoded.dLat).toBeCloseTo(0.56, 9);
  const u = decodeMotionComponent(encoded, 'u');
  const v = decodeMotionComponent(encoded, 'v');
  expect(u).toHaveLength(125 * 63);
  for (const value of u) expect(value).toBeCloseTo(0.01, 6); // 2 x 0.01 degrees / 2 minutes
  for (const value of v)
    expect(Math.abs(value - -0.005)).toBeLessThanOrEqual(encoded.scale * 0.501);
  // Small: tens of KB at most.
  expect(JSON.stringify(encoded).length).toBeLessThan(30_000);
});

it('keeps where the motion is: a field faster in the east decodes faster in the east', () => {
  const encoded = encodeMotion(
    field(256, 16, (x) => (x < 128 ? 0 : 4), 0),
    CONUS,
    2,
  );
  expect([encoded.width, encoded.height]).toEqual([128, 8]);
  const u = decodeMotionComponent(encoded, 'u');
  expect(u[0]).toBe(0);
  expect(u[127]).toBeCloseTo(0.02, 6);
  expect(Math.max(...u.map(Math.abs))).toBeLessThanOrEqual(127 * encoded.scale + 1e-12);
});

it('a still field encodes as zeros', () => {
  const encoded = encodeMotion(
    field(10, 5, () => 0, 0),
    CONUS,
    2,
  );
  expect([encoded.width, encoded.height]).toEqual([10, 5]);
  expect([...decodeMotionComponent(encoded, 'u')].every((x) => x === 0)).toBe(true);
});
