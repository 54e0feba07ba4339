/**
 * Synthetic CONUS reflectivity (dBZ) on a coarse lat/lon grid, one grid per frame. Tiles
 * interpolate this grid bilinearly instead of evaluating the weather per pixel, which is what
 * keeps a whole frame (hundreds of tiles) within the simulator's time budget.
 */
import type { GeoBounds } from '../domain/reflectivity-grid';
import { valueNoise3 } from './noise';
import { KM_PER_DEG_LAT, KM_PER_DEG_LON } from './echo';
import { echoesAt } from './storm-systems';

// Local bindings: these run in hot loops, and inside vm contexts (jest) a global lookup such as
// `Math` costs far more than a closure variable.
const { exp, log10 } = Math;

/** Contiguous United States: the area the simulated weather covers. */
export const CONUS_BOUNDS: GeoBounds = Object.freeze({
  west: -125,
  south: 24,
  east: -66,
  north: 50,
});

/** Options of {@link createReflectivityField}. */
export interface FieldOptions {
  /** Chooses the weather; the same seed and time always give the same field. */
  readonly seed?: number;
  /** Grid spacing in degrees (default 0.05, about 5 km). */
  readonly stepDeg?: number;
  /** Area covered (default CONUS). */
  readonly bounds?: GeoBounds;
}

/** Reflectivity sampled on a regular lat/lon grid. */
export interface FieldGrid {
  readonly bounds: GeoBounds;
  readonly stepDeg: number;
  readonly cols: number;
  readonly rows: number;
  /**
   * dBZ, row-major: `dbz[r * cols + c]` is the value at lon `west + c * stepDeg`,
   * lat `north - r * stepDeg`. No echo is a large negative value, never NaN.
   */
  readonly dbz: Float32Array;
}

/** The simulated weather: deterministic in (seed, time). */
export interface ReflectivityField {
  readonly seed: number;
  /** The field at `epochMs` (any instant, computed directly, without history). */
  sample(epochMs: number): FieldGrid;
}

/** Default seed of the simulated weather. */
export const DEFAULT_SEED = 20260522;

/** Value of grid points without any echo. */
export const NO_ECHO_DBZ = -30;

// Small-scale texture: drifts with the mean westerly flow and evolves over ~45 minutes.
const TEXTURE_EAST_DEG_PER_S = 0.35 / 3600;
const TEXTURE_NORTH_DEG_PER_S = 0.08 / 3600;
const TEXTURE_AMPLITUDE_DBZ = 9;
const RAGGED_SCALE_KM = 9;
const LN10_OVER_10 = Math.LN10 / 10;

/** Creates the field for `options.seed`; sampling allocates a new grid per call. */
export function createReflectivityField(options: FieldOptions = {}): ReflectivityField {
  const seed = (options.seed ?? DEFAULT_SEED) >>> 0;
  const bounds = options.bounds ?? CONUS_BOUNDS;
  const step = options.stepDeg ?? 0.05;
  const cols = Math.round((bounds.east - bounds.west) / step) + 1;
  const rows = Math.round((bounds.north - bounds.south) / step) + 1;

  return {
    seed,
    sample(epochMs) {
      const epochS = epochMs / 1000;
      const z = new Float64Array(cols * rows); // linear reflectivity factor, summed over echoes
      for (const echo of echoesAt(seed, epochS)) {
        if (echo.peak <= 1) continue;
        const kmPerDegLon = KM_PER_DEG_LON * Math.cos((echo.lat * Math.PI) / 180);
        // Distortion can shrink q^2 by the factor (1 - ragged), reaching further out.
        const reach = Math.max(echo.alongKm, echo.acrossKm) / Math.sqrt(1 - echo.ragged);
        const textureT = epochS / 900;
        const c0 = Math.max(0, Math.ceil((echo.lon - reach / kmPerDegLon - bounds.west) / step));
        const c1 = Math.min(
          cols - 1,
          Math.floor((echo.lon + reach / kmPerDegLon - bounds.west) / step),
        );
        const r0 = Math.max(
          0,
          Math.ceil((bounds.north - echo.lat - reach / KM_PER_DEG_LAT) / step),
        );
        const r1 = Math.min(
          rows - 1,
          Math.floor((bounds.north - echo.lat + reach / KM_PER_DEG_LAT) / step),
        );
        const k = echo.peak * LN10_OVER_10;
        const invA = 1 / echo.alongKm;
        const invC = 1 / echo.acrossKm;
        for (let r = r0; r <= r1; r++) {
          const dy = (bounds.north - r * step - echo.lat) * KM_PER_DEG_LAT;
          const row = r * cols;
          for (let c = c0; c <= c1; c++) {
            const dx = (bounds.west + c * step - echo.lon) * kmPerDegLon;
            const along = (dx * echo.axisEast + dy * echo.axisNorth) * invA;
            const across = (dx * echo.axisNorth - dy * echo.axisEast) * invC;
            let q2 = along * along + across * across;
            if (echo.ragged > 0) {
              if (q2 * (1 - echo.ragged) >= 1) continue;
              const n = valueNoise3(
                echo.textureSeed,
                dx / RAGGED_SCALE_KM,
                dy / RAGGED_SCALE_KM,
                textureT,
              );
              q2 *= 1 + echo.ragged * (2 * n - 1);
            }
            if (q2 >= 1) continue;
            const shape = echo.power === 2 ? q2 : q2 * q2;
            // Minus one keeps the edge continuous: the echo adds nothing at q = 1.
            z[row + c]! += exp(k * (1 - shape)) - 1;
          }
        }
      }

      const dbz = new Float32Array(cols * rows);
      const shiftLon = TEXTURE_EAST_DEG_PER_S * epochS;
      const shiftLat = TEXTURE_NORTH_DEG_PER_S * epochS;
      const coarseT = epochS / 2700;
      const fineT = epochS / 1500;
      for (let r = 0; r < rows; r++) {
        const lat = bounds.north - r * step - shiftLat;
        for (let c = 0; c < cols; c++) {
          const i = r * cols + c;
          const zi = z[i]!;
          if (zi < 0.1) {
            dbz[i] = NO_ECHO_DBZ;
            continue;
          }
          const lon = bounds.west + c * step - shiftLon;
          const n =
            0.5 * valueNoise3(seed + 1, lon / 0.9, lat / 0.9, coarseT) +
            0.3 * valueNoise3(seed + 2, lon / 0.3, lat / 0.3, fineT) +
            0.2 * valueNoise3(seed + 3, lon / 0.12, lat / 0.12, fineT);
          dbz[i] = 10 * log10(zi) + (n - 0.5) * 2 * TEXTURE_AMPLITUDE_DBZ;
        }
      }
      return { bounds, stepDeg: step, cols, rows, dbz };
    },
  };
}

/**
 * Bilinearly interpolated dBZ at a point; {@link NO_ECHO_DBZ} outside the grid. The reference
 * for what tile pixels show (the renderer inlines the same arithmetic).
 */
export function dbzAt(grid: FieldGrid, lon: number, lat: number): number {
  const gx = (lon - grid.bounds.west) / grid.stepDeg;
  const gy = (grid.bounds.north - lat) / grid.stepDeg;
  if (!(gx >= 0 && gy >= 0 && gx <= grid.cols - 1 && gy <= grid.rows - 1)) return NO_ECHO_DBZ;
  const c0 = Math.min(grid.cols - 2, Math.floor(gx));
  const r0 = Math.min(grid.rows - 2, Math.floor(gy));
  const fx = gx - c0;
  const fy = gy - r0;
  const i = r0 * grid.cols + c0;
  const d = grid.dbz;
  const top = d[i]! + (d[i + 1]! - d[i]!) * fx;
  const bottom = d[i + grid.cols]! + (d[i + grid.cols + 1]! - d[i + grid.cols]!) * fx;
  return top + (bottom - top) * fy;
}
