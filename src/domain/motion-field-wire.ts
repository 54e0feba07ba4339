/**
 * The motion field's wire form: the `motion` object a forecast archive's metadata and its
 * TileJSON carry, so a viewer can move echoes between frames without measuring motion itself.
 * One definition for the producer that encodes it, the client library that decodes it (in
 * browsers too: no Node APIs here) and the tests that build fields of a known motion.
 *
 *   value(u or v at column c, row r) = int8(bytes[r * width + c]) * scale  (degrees per minute)
 *   centre of cell (c, r) = (west + (c + 0.5) * dLon, north - (r + 0.5) * dLat)
 *
 * with u eastward and v northward positive; row 0 is the northernmost.
 */

/** Widest field: 128 columns x 64 rows of CONUS is 16 KB of bytes, 22 KB of base64. */
export const MAX_MOTION_COLUMNS = 128;

/** Where a motion field's cells lie: a lon/lat grid, cell (0, 0) at the north-west corner. */
export interface MotionGeometry {
  readonly width: number;
  readonly height: number;
  /** Outer west edge of column 0, degrees. */
  readonly west: number;
  /** Outer north edge of row 0, degrees. */
  readonly north: number;
  /** Cell width, degrees of longitude (positive). */
  readonly dLon: number;
  /** Cell height, degrees of latitude (positive). */
  readonly dLat: number;
}

/** The `motion` object of a forecast frame. */
export interface MotionFieldWire extends MotionGeometry {
  readonly encoding: 'int8-base64';
  readonly unit: 'degrees per minute';
  /** Degrees per minute of one int8 step. */
  readonly scale: number;
  /** Base64 of `width * height` int8, row-major, row 0 north: eastward motion. */
  readonly u: string;
  /** The same for northward motion. */
  readonly v: string;
}

/** `values / scale`, rounded and clamped to int8, as standard base64. */
export function int8Base64(values: ArrayLike<number>, scale: number): string {
  let binary = '';
  for (let i = 0; i < values.length; i++) {
    const step = Math.max(-128, Math.min(127, Math.round(values[i]! / scale)));
    binary += String.fromCharCode(step & 0xff);
  }
  return btoa(binary);
}

/** The signed bytes of a standard base64 string, or `undefined` when it is not base64. */
export function int8FromBase64(text: unknown): Int8Array | undefined {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0)
    return undefined;
  const binary = atob(text);
  const bytes = new Int8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = (binary.charCodeAt(i) << 24) >> 24;
  return bytes;
}
