/**
 * Geometry of simulated echoes: the elliptical echo every weather system is drawn with, and
 * the moving frames and life envelopes systems use to place and grow them. Kept apart from
 * the systems themselves so the field can splat echoes without knowing where they came from.
 */
import type { UniformSequence } from './noise';

/** Kilometres per degree of latitude. */
export const KM_PER_DEG_LAT = 110.57;
/** Kilometres per degree of longitude at the equator (scale by cos(latitude)). */
export const KM_PER_DEG_LON = 111.32;

/**
 * One elliptical echo. Its reflectivity is `peak * (1 - q^power)` dBZ inside the ellipse
 * (q = normalised elliptical radius), i.e. a Gaussian (power 2) or flat-topped (power 4)
 * bump in linear Z; echoes add in linear Z, as reflectivity from separate volumes does.
 */
export interface Echo {
  /** Centre, degrees. */
  readonly lon: number;
  readonly lat: number;
  /** Unit vector of the long axis in local (east, north) kilometres. */
  readonly axisEast: number;
  readonly axisNorth: number;
  /** Semi-axes in km: along the axis and across it. */
  readonly alongKm: number;
  readonly acrossKm: number;
  /** Peak reflectivity, dBZ (0 means invisible). */
  readonly peak: number;
  readonly power: 2 | 4;
  /**
   * 0..0.5: how much the outline is distorted by noise that moves with the echo (0 = a
   * smooth ellipse). Convective cells are ragged; broad rain is textured by the field instead.
   */
  readonly ragged: number;
  /** Seed of the echo's own distortion noise. */
  readonly textureSeed: number;
}

/** Linear interpolation from `a` (t = 0) to `b` (t = 1). */
export function lerp(a: number, b: number, t: number): number {
  return a + (b - a) * t;
}

function smoothstep(x: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  return x * x * (3 - 2 * x);
}

/**
 * 0 outside (0, 1), rising over the first `rise` and falling over the last `fall` of a life
 * fraction; C1-smooth, so intensities never jump between consecutive frames.
 */
export function envelope(fraction: number, rise: number, fall: number): number {
  if (fraction <= 0 || fraction >= 1) return 0;
  return smoothstep(fraction / rise) * smoothstep((1 - fraction) / fall);
}

/** A moving frame: the system's centre and its heading as a unit (east, north) vector. */
export interface Frame {
  readonly lon: number;
  readonly lat: number;
  readonly east: number;
  readonly north: number;
}

/**
 * Where a system born at (`lon0`, `lat0`) is after `ageS` seconds of straight motion, with a
 * bearing (degrees clockwise from north) and speed (m/s) drawn from `rnd` within the ranges.
 * Consumes exactly two numbers of `rnd`.
 */
export function movingFrame(
  rnd: UniformSequence,
  lon0: number,
  lat0: number,
  ageS: number,
  bearing: [number, number],
  speed: [number, number],
): Frame {
  const b = (lerp(bearing[0], bearing[1], rnd()) * Math.PI) / 180;
  const metresPerS = lerp(speed[0], speed[1], rnd());
  const east = Math.sin(b);
  const north = Math.cos(b);
  const km = (metresPerS * ageS) / 1000;
  const lat = lat0 + (north * km) / KM_PER_DEG_LAT;
  const lon = lon0 + (east * km) / (KM_PER_DEG_LON * Math.cos((lat0 * Math.PI) / 180));
  return { lon, lat, east, north };
}

/** Position of a point `along`/`right` km from a frame's centre (right = to the right of heading). */
export function offset(frame: Frame, along: number, right: number): { lon: number; lat: number } {
  const east = along * frame.east + right * frame.north;
  const north = along * frame.north - right * frame.east;
  return {
    lon: frame.lon + east / (KM_PER_DEG_LON * Math.cos((frame.lat * Math.PI) / 180)),
    lat: frame.lat + north / KM_PER_DEG_LAT,
  };
}
