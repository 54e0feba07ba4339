/**
 * The nowcast's motion field in the small, geographic wire form a forecast archive carries in
 * its metadata (`"motion"`, `domain/motion-field-wire.ts`; docs/nowcast.md "The motion field in
 * the metadata"): at most {@link MAX_MOTION_COLUMNS} columns, one signed byte per value, v
 * northward positive (the nowcast's own field counts rows southward).
 */
import {
  int8Base64,
  int8FromBase64,
  MAX_MOTION_COLUMNS,
  type MotionFieldWire,
} from '../domain/motion-field-wire';
import type { GridGeometry } from '../domain/reflectivity-grid';
import type { MotionField } from './motion';

/** The motion object of a forecast archive's metadata (its wire form). */
export type EncodedMotionField = MotionFieldWire;

/**
 * Encodes `motion` (cells of `grid` per step of `stepMinutes`, v southward) as the metadata's
 * motion object: block means of `k` x `k` motion cells (`k` the least that fits
 * {@link MAX_MOTION_COLUMNS}; the last column and row may reach past the grid), converted to
 * degrees per minute and quantised to int8 at one scale for both components.
 */
export function encodeMotion(
  motion: MotionField,
  grid: Pick<GridGeometry, 'west' | 'north' | 'dLon' | 'dLat'>,
  stepMinutes: number,
): EncodedMotionField {
  if (!(stepMinutes > 0)) throw new RangeError(`stepMinutes ${stepMinutes} must be positive`);
  const k = Math.max(1, Math.ceil(motion.width / MAX_MOTION_COLUMNS));
  const width = Math.ceil(motion.width / k);
  const height = Math.ceil(motion.height / k);
  const east = new Float64Array(width * height);
  const north = new Float64Array(width * height);
  const counts = new Uint32Array(width * height);
  const perU = grid.dLon / stepMinutes;
  const perV = -grid.dLat / stepMinutes; // rows run south: a southward cell is a negative northward
  for (let y = 0; y < motion.height; y++)
    for (let x = 0; x < motion.width; x++) {
      const at = ((y / k) | 0) * width + ((x / k) | 0);
      const i = y * motion.width + x;
      east[at]! += motion.u[i]! * perU;
      north[at]! += motion.v[i]! * perV;
      counts[at]!++;
    }
  let largest = 0;
  for (let i = 0; i < counts.length; i++) {
    east[i] = east[i]! / counts[i]!;
    north[i] = north[i]! / counts[i]!;
    largest = Math.max(largest, Math.abs(east[i]!), Math.abs(north[i]!));
  }
  const scale = largest > 0 ? largest / 127 : 1e-6;
  const cellDeg = (d: number) => d * motion.factor * k;
  return {
    encoding: 'int8-base64',
    width,
    height,
    west: grid.west - grid.dLon / 2,
    north: grid.north + grid.dLat / 2,
    dLon: cellDeg(grid.dLon),
    dLat: cellDeg(grid.dLat),
    unit: 'degrees per minute',
    scale,
    u: int8Base64(east, scale),
    v: int8Base64(north, scale),
  };
}

/** Decodes one component of an encoded field (degrees per minute, row-major, row 0 north). */
export function decodeMotionComponent(field: EncodedMotionField, which: 'u' | 'v'): Float64Array {
  const signed = int8FromBase64(field[which]);
  if (signed === undefined) throw new RangeError(`motion.${which} is not base64`);
  return Float64Array.from(signed, (value) => value * field.scale);
}

export { MAX_MOTION_COLUMNS };
