/** The motion field's wire form decoded and validated, and sampled between cell centres. */
import { RadarResponseError } from '../../../src/client/errors';
import { motionAt, parseMotionField } from '../../../src/client/motion-field';
import { encodeMotionField } from '../../fixtures/motion-field';

/** 4 x 2 cells of 1 degree from (-100, 40): u grows eastward by column, v is -row. */
const wire = encodeMotionField({
  width: 4,
  height: 2,
  west: -100,
  north: 40,
  dLon: 1,
  dLat: 1,
  scale: 0.01,
  u: (col) => col * 0.1,
  v: (_col, row) => -row * 0.05,
});

it('decodes int8 values times the scale, row-major, row 0 north', () => {
  const field = parseMotionField(wire);
  expect(field).toMatchObject({ width: 4, height: 2, west: -100, north: 40, dLon: 1, dLat: 1 });
  expect([...field.u].map((x) => +x.toFixed(4))).toEqual([0, 0.1, 0.2, 0.3, 0, 0.1, 0.2, 0.3]);
  expect([...field.v].map((x) => +x.toFixed(4))).toEqual([0, 0, 0, 0, -0.05, -0.05, -0.05, -0.05]);
});

it('reads negative bytes as negative motion (int8, not uint8)', () => {
  const field = parseMotionField(
    encodeMotionField({ ...wire, scale: 0.01, u: () => -1.28, v: () => -0.01 }),
  );
  expect(field.u[0]).toBeCloseTo(-1.28, 5);
  expect(field.v[0]).toBeCloseTo(-0.01, 5);
});

it('samples bilinearly between cell centres and holds the edge values beyond them', () => {
  const field = parseMotionField(wire);
  // Centre of cell (1, 0) is (-98.5, 39.5); halfway to (2, 0) is -98.
  expect(motionAt(field, -98.5, 39.5)[0]).toBeCloseTo(0.1, 5);
  expect(motionAt(field, -98, 39.5)[0]).toBeCloseTo(0.15, 5);
  expect(motionAt(field, -99.5, 39)[1]).toBeCloseTo(-0.025, 5);
  expect(motionAt(field, -150, 60)).toEqual([field.u[0], field.v[0]]);
  expect(motionAt(field, 0, 0)[0]).toBeCloseTo(0.3, 5);
});

it.each([
  ['not an object', 'motion'],
  ['another encoding', { ...wire, encoding: 'float32-base64' }],
  ['another unit', { ...wire, unit: 'pixels per frame' }],
  ['more than 128 columns', { ...wire, width: 129 }],
  ['no rows', { ...wire, height: 0 }],
  ['a cell size of zero', { ...wire, dLon: 0 }],
  ['a negative scale', { ...wire, scale: -1 }],
  ['u not base64', { ...wire, u: 'not base64!' }],
  ['v of the wrong length', { ...wire, v: Buffer.alloc(7).toString('base64') }],
  ['west missing', { ...wire, west: undefined }],
])('refuses %s with a clear error', (_name, body) => {
  expect(() => parseMotionField(body)).toThrow(RadarResponseError);
});
