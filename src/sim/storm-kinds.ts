/**
 * The kinds of weather the simulator draws: convective clusters, frontal bands, broad rain
 * shields and scattered showers. Each builder turns a system's random stream and age into
 * echoes, drawing every random number before any early exit so that a system looks the same
 * whichever of its parts are visible at a given instant.
 */
import { type Echo, envelope, type Frame, lerp, movingFrame, offset } from './echo';
import { createUniformSequence, hashInts, type UniformSequence } from './noise';

const HOUR = 3600;

/**
 * A convective cluster: 1-4 cells (40-65 dBZ cores) that pulse within the cluster's 1.5-5 h
 * life, and a trailing rain shield of 28-38 dBZ.
 */
export function convectiveCluster(
  rnd: UniformSequence,
  ageS: number,
  lifeS: number,
  _epochS: number,
  out: Echo[],
): void {
  const lon0 = lerp(-108, -72, rnd());
  const lat0 = lerp(27, 47, rnd());
  const frame = movingFrame(rnd, lon0, lat0, ageS, [50, 100], [7, 18]);
  const life = ageS / lifeS;
  const clusterEnv = envelope(life, 0.15, 0.3);

  const cells = 2 + Math.floor(rnd() * 5);
  for (let k = 0; k < cells; k++) {
    const along0 = (rnd() - 0.5) * 70;
    const right = (rnd() - 0.5) * 90;
    const drift = (rnd() - 0.5) * 40;
    const peak = lerp(46, 66, rnd());
    const radius = lerp(15, 32, rnd());
    const stretch = lerp(1, 1.6, rnd());
    const start = rnd() * 0.45;
    const span = lerp(0.45, 0.9, rnd());
    const texture = Math.floor(rnd() * 4294967296);
    const env = clusterEnv * envelope((life - start) / span, 0.3, 0.4);
    if (env <= 0) continue;
    const at = offset(frame, along0 + drift * (life - 0.5), right);
    const scale = 0.55 + 0.45 * env;
    out.push({
      lon: at.lon,
      lat: at.lat,
      axisEast: frame.east,
      axisNorth: frame.north,
      alongKm: radius * stretch * scale,
      acrossKm: radius * scale,
      peak: peak * env,
      power: 2,
      ragged: 0.5,
      textureSeed: texture,
    });
  }

  const shieldPeak = lerp(28, 38, rnd());
  const shieldAlong = lerp(70, 150, rnd());
  const shieldAcross = lerp(45, 90, rnd());
  const shieldTexture = Math.floor(rnd() * 4294967296);
  const shieldEnv = envelope(life - 0.05, 0.3, 0.35);
  if (shieldEnv > 0) {
    const at = offset(frame, -0.35 * shieldAlong, 0);
    const scale = 0.5 + 0.5 * shieldEnv;
    out.push({
      lon: at.lon,
      lat: at.lat,
      axisEast: frame.east,
      axisNorth: frame.north,
      alongKm: shieldAlong * scale,
      acrossKm: shieldAcross * scale,
      peak: shieldPeak * shieldEnv,
      power: 2,
      ragged: 0.35,
      textureSeed: shieldTexture,
    });
  }
}

/**
 * A frontal band: a 500-1400 km long, SW-NE oriented band of 24-36 dBZ stratiform rain made
 * of segments that wax and wane, with lighter rain trailing it and sometimes a squall line of
 * pulsing cells on its leading edge; lives 6-14 h.
 */
export function frontalBand(
  rnd: UniformSequence,
  ageS: number,
  lifeS: number,
  epochS: number,
  out: Echo[],
): void {
  const lon0 = lerp(-112, -80, rnd());
  const lat0 = lerp(30, 46, rnd());
  const frame = movingFrame(rnd, lon0, lat0, ageS, [60, 110], [5, 13]);
  const life = ageS / lifeS;
  const bandEnv = envelope(life, 0.2, 0.3);

  const axisBearing = (lerp(15, 60, rnd()) * Math.PI) / 180;
  const axis: Frame = {
    lon: frame.lon,
    lat: frame.lat,
    east: Math.sin(axisBearing),
    north: Math.cos(axisBearing),
  };
  // Side of the axis the band moves towards: that is where a squall line forms.
  const leading = axis.north * frame.east - axis.east * frame.north >= 0 ? 1 : -1;
  const length = lerp(500, 1400, rnd());
  const width = lerp(70, 160, rnd());
  const bow = (rnd() - 0.5) * 2 * width;

  const segments = 6 + Math.floor(rnd() * 7);
  for (let k = 0; k < segments; k++) {
    const t = (k + 0.5) / segments - 0.5;
    const along = t * length + (rnd() - 0.5) * (length / segments) * 0.5;
    const right = (rnd() - 0.5) * width * 0.8 + bow * (1 - 4 * t * t);
    const alongKm = (length / segments) * lerp(0.75, 1.15, rnd());
    const acrossKm = width * lerp(0.5, 1, rnd());
    const period = lerp(2, 5, rnd()) * HOUR;
    const phase = rnd() * 2 * Math.PI;
    const start = rnd() * 0.25;
    const end = 1 - rnd() * 0.25;
    // Draw every random number before any early exit, so later segments keep their values.
    const basePeak = lerp(24, 35, rnd());
    const env = bandEnv * envelope((life - start) / (end - start), 0.25, 0.3);
    if (env <= 0) continue;
    const peak = basePeak + 4 * Math.sin((2 * Math.PI * epochS) / period + phase);
    const at = offset(axis, along, right);
    const scale = 0.6 + 0.4 * env;
    out.push({
      lon: at.lon,
      lat: at.lat,
      axisEast: axis.east,
      axisNorth: axis.north,
      alongKm: alongKm * scale,
      acrossKm: acrossKm * scale,
      peak: peak * env,
      power: 4,
      ragged: 0,
      textureSeed: 0,
    });
    // Lighter rain trailing the band.
    const trail = offset(axis, along, right - leading * acrossKm * 0.9);
    out.push({
      lon: trail.lon,
      lat: trail.lat,
      axisEast: axis.east,
      axisNorth: axis.north,
      alongKm: alongKm * scale * 1.2,
      acrossKm: acrossKm * scale * 1.6,
      peak: (basePeak - 8) * env,
      power: 2,
      ragged: 0,
      textureSeed: 0,
    });
  }

  if (rnd() < 0.45) {
    const cells = 3 + Math.floor(rnd() * 6);
    for (let k = 0; k < cells; k++) {
      const along = (rnd() - 0.5) * length * 0.8;
      const t = along / length;
      const right = leading * width * lerp(0.3, 0.5, rnd()) + bow * (1 - 4 * t * t);
      const peak = lerp(42, 58, rnd());
      const radius = lerp(10, 20, rnd());
      const period = lerp(40, 100, rnd()) * 60;
      const phase = rnd() * period;
      const texture = Math.floor(rnd() * 4294967296);
      const pulse = 0.5 - 0.5 * Math.cos((2 * Math.PI * (epochS + phase)) / period);
      const env = bandEnv * pulse;
      if (env <= 0) continue;
      const at = offset(axis, along, right);
      const scale = 0.55 + 0.45 * env;
      out.push({
        lon: at.lon,
        lat: at.lat,
        axisEast: axis.east,
        axisNorth: axis.north,
        alongKm: radius * 1.3 * scale,
        acrossKm: radius * scale,
        peak: peak * env,
        power: 2,
        ragged: 0.5,
        textureSeed: texture,
      });
    }
  }
}

/**
 * A broad area of light, patchy rain or snow (16-27 dBZ, 250-450 km across), the kind that
 * covers whole states for half a day; lives 8-16 h.
 */
export function rainShield(
  rnd: UniformSequence,
  ageS: number,
  lifeS: number,
  epochS: number,
  out: Echo[],
): void {
  const lon0 = lerp(-118, -78, rnd());
  const lat0 = lerp(33, 48, rnd());
  const frame = movingFrame(rnd, lon0, lat0, ageS, [45, 110], [4, 10]);
  const env = envelope(ageS / lifeS, 0.25, 0.3);
  const lobes = 3 + Math.floor(rnd() * 4);
  for (let k = 0; k < lobes; k++) {
    const along = (rnd() - 0.5) * 300;
    const right = (rnd() - 0.5) * 250;
    const alongKm = lerp(120, 260, rnd());
    const acrossKm = lerp(90, 180, rnd());
    const period = lerp(3, 6, rnd()) * HOUR;
    const phase = rnd() * 2 * Math.PI;
    const peak = lerp(17, 26, rnd()) + 3 * Math.sin((2 * Math.PI * epochS) / period + phase);
    if (env <= 0) continue;
    const at = offset(frame, along, right);
    const scale = 0.6 + 0.4 * env;
    out.push({
      lon: at.lon,
      lat: at.lat,
      axisEast: frame.north,
      axisNorth: -frame.east,
      alongKm: alongKm * scale,
      acrossKm: acrossKm * scale,
      peak: peak * env,
      power: 4,
      ragged: 0,
      textureSeed: 0,
    });
  }
}

// Each storm kind repeats the same skeleton (origin, moving frame, envelope, lobes) on
// purpose: the kinds are a table of tuned parameters, and each draws its own random values in
// its own order, which a shared helper would couple (the field is fixed by its seed).
/**
 * Scattered afternoon showers: 12-35 small cells (25-52 dBZ) popping up and collapsing every
 * 30-80 minutes within a 150-300 km area; lives 3-7 h.
 */
export function showerField(
  rnd: UniformSequence,
  ageS: number,
  lifeS: number,
  epochS: number,
  out: Echo[],
): void {
  const lon0 = lerp(-104, -76, rnd());
  const lat0 = lerp(26, 44, rnd());
  const frame = movingFrame(rnd, lon0, lat0, ageS, [40, 120], [3, 9]);
  const fieldEnv = envelope(ageS / lifeS, 0.25, 0.35);
  const radiusKm = lerp(150, 300, rnd());
  const cellSeed = Math.floor(rnd() * 4294967296);
  const cells = 12 + Math.floor(rnd() * 24);
  for (let k = 0; k < cells; k++) {
    const period = lerp(30, 80, rnd()) * 60;
    const phase = rnd() * period;
    const cycles = (epochS + phase) / period;
    // Each cycle the cell pops up somewhere else in the field.
    const cell = createUniformSequence(hashInts(cellSeed, k, Math.floor(cycles)));
    const angle = cell() * 2 * Math.PI;
    const distance = Math.sqrt(cell()) * radiusKm;
    const peak = lerp(25, 52, cell());
    const radius = lerp(6, 14, cell());
    const texture = Math.floor(cell() * 4294967296);
    const env = fieldEnv * envelope(cycles - Math.floor(cycles), 0.35, 0.5);
    if (env <= 0) continue;
    const at = offset(frame, distance * Math.cos(angle), distance * Math.sin(angle));
    const scale = 0.5 + 0.5 * env;
    out.push({
      lon: at.lon,
      lat: at.lat,
      axisEast: frame.east,
      axisNorth: frame.north,
      alongKm: radius * scale,
      acrossKm: radius * scale,
      peak: peak * env,
      power: 2,
      ragged: 0.45,
      textureSeed: texture,
    });
  }
}
