/**
 * The motion field a forecast frame carries (its TileJSON's and archive metadata's `motion`):
 * how far the echoes move per minute at each cell of a coarse lon/lat grid. It is what moved
 * the forecast's echoes, and what a viewer needs to interpolate between frames along the flow
 * instead of cross-fading in place. The wire form is small (tens of KB): two base64 strings of
 * int8 values times `scale`, at most 128 columns.
 */
import {
  int8FromBase64,
  MAX_MOTION_COLUMNS,
  type MotionGeometry,
} from '../domain/motion-field-wire';
import { RadarResponseError } from './errors';

export { MAX_MOTION_COLUMNS };
/** Most rows accepted (a 2:1 CONUS grid of 128 columns has 64). */
export const MAX_MOTION_ROWS = 1024;

/**
 * A decoded motion field. Cell (col, row) has its centre at
 * (`west + (col + 0.5) * dLon`, `north - (row + 0.5) * dLat`); row 0 is the northernmost.
 */
export interface RadarMotionField extends MotionGeometry {
  /** Eastward displacement, degrees of longitude per minute, row-major (`width * height`). */
  readonly u: Float32Array;
  /** Northward displacement, degrees of latitude per minute, row-major. */
  readonly v: Float32Array;
}

const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isCount = (v: unknown, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max;

/**
 * Validates and decodes a motion field's wire form (`encoding: "int8-base64"`, unit degrees
 * per minute); throws {@link RadarResponseError} naming the first violation.
 */
export function parseMotionField(body: unknown): RadarMotionField {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RadarResponseError('motion is not a JSON object');
  const m = body as Record<string, unknown>;
  if (m.encoding !== 'int8-base64')
    throw new RadarResponseError(`motion.encoding is not int8-base64: ${String(m.encoding)}`);
  if (m.unit !== 'degrees per minute')
    throw new RadarResponseError('motion.unit is not "degrees per minute"');
  if (!isCount(m.width, MAX_MOTION_COLUMNS) || !isCount(m.height, MAX_MOTION_ROWS))
    throw new RadarResponseError(
      `motion width/height are not 1..${MAX_MOTION_COLUMNS} by 1..${MAX_MOTION_ROWS} cells`,
    );
  const { width, height } = m;
  if (!isFiniteNumber(m.west) || !isFiniteNumber(m.north))
    throw new RadarResponseError('motion.west/north are not numbers');
  if (!isFiniteNumber(m.dLon) || !isFiniteNumber(m.dLat) || m.dLon <= 0 || m.dLat <= 0)
    throw new RadarResponseError('motion.dLon/dLat are not positive numbers');
  if (!isFiniteNumber(m.scale) || m.scale <= 0)
    throw new RadarResponseError('motion.scale is not a positive number');
  const scale = m.scale;
  const planes = (['u', 'v'] as const).map((name) => {
    const raw = int8FromBase64(m[name]);
    if (raw === undefined) throw new RadarResponseError(`motion.${name} is not base64`);
    if (raw.length !== width * height)
      throw new RadarResponseError(
        `motion.${name} holds ${raw.length} values, not width * height = ${width * height}`,
      );
    return Float32Array.from(raw, (value) => value * scale);
  });
  return {
    width,
    height,
    west: m.west,
    north: m.north,
    dLon: m.dLon,
    dLat: m.dLat,
    u: planes[0]!,
    v: planes[1]!,
  };
}

/**
 * The motion at a point, degrees per minute `[eastward, northward]`: bilinear between the four
 * nearest cell centres, the edge cells' values beyond the outer centres (the field covers the
 * radar mosaic; outside it there are no echoes to move).
 */
export function motionAt(field: RadarMotionField, lon: number, lat: number): [number, number] {
  const fx = Math.min(Math.max((lon - field.west) / field.dLon - 0.5, 0), field.width - 1);
  const fy = Math.min(Math.max((field.north - lat) / field.dLat - 0.5, 0), field.height - 1);
  const x0 = Math.floor(fx);
  const y0 = Math.floor(fy);
  const x1 = Math.min(x0 + 1, field.width - 1);
  const y1 = Math.min(y0 + 1, field.height - 1);
  const ax = fx - x0;
  const ay = fy - y0;
  const at = (plane: Float32Array) => {
    const top = plane[y0 * field.width + x0]! * (1 - ax) + plane[y0 * field.width + x1]! * ax;
    const bottom = plane[y1 * field.width + x0]! * (1 - ax) + plane[y1 * field.width + x1]! * ax;
    return top * (1 - ay) + bottom * ay;
  };
  return [at(field.u), at(field.v)];
}
