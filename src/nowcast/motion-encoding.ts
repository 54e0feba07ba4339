/**
 * The motion field in the small, geographic form a forecast archive carries in its metadata
 * (`"motion"`), so a client can move echoes between frames without measuring motion itself:
 * at most {@link MAX_MOTION_COLUMNS} columns, each value one signed byte, base64. Its format is
 * documented in docs/nowcast.md ("The motion field in the metadata"); a client decodes it as:
 *
 *   value(u or v at column c, row r) = int8(bytes[r * width + c]) * scale  (degrees per minute)
 *   centre of cell (c, r) = (west + (c + 0.5) * dLon, north - (r + 0.5) * dLat)
 *
 * with u eastward and v NORTHWARD positive (the nowcast's own field counts rows southward).
 */
import type { GridGeometry } from '../domain/reflectivity-grid';
import type { MotionField } from './motion';

/** Widest encoded field: 128 columns x 64 rows of CONUS is 16 KB of bytes, 22 KB of base64. */
export const MAX_MOTION_COLUMNS = 128;

/** The motion object of a forecast archive's metadata. */
export interface EncodedMotionField {
  readonly encoding: 'int8-base64';
  readonly width: number;
  readonly height: number;
  /** Outer west edge of column 0, degrees. */
  readonly west: number;
  /** Outer north edge of row 0, degrees. */
  readonly north: number;
  readonly dLon: number;
  readonly dLat: number;
  readonly unit: 'degrees per minute';
  /** Degrees per minute of one int8 step. */
  readonly scale: number;
  /** Base64 of `width * height` int8, row-major, row 0 north: eastward motion. */
  readonly u: string;
  /** The same for northward motion. */
  readonly v: string;
}

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
  const quantise = (values: Float64Array) =>
    Buffer.from(Int8Array.from(values, (value) => Math.round(value / scale)).buffer).toString(
      'base64',
    );
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
    u: quantise(east),
    v: quantise(north),
  };
}

/** Decodes one component of an encoded field (degrees per minute, row-major, row 0 north). */
export function decodeMotionComponent(field: EncodedMotionField, which: 'u' | 'v'): Float64Array {
  const bytes = Buffer.from(field[which], 'base64');
  const signed = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  return Float64Array.from(signed, (value) => value * field.scale);
}
