/**
 * The simulator as a source of grids: its weather, computed on the field's coarse grid (the
 * resolution setting, 0.05 degree by default), sampled bilinearly onto a reflectivity grid as
 * fine as the deepest zoom's pixels (at most z7's, about 1 km), which the one renderer turns
 * into tiles. The fine grid keeps the look the simulator always had (smooth echoes, not 5 km
 * blocks) at the cost of one cheap interpolation pass.
 */
import {
  type GeoBounds,
  NO_COVERAGE_MARKER,
  NO_ECHO_MARKER,
  type ReflectivityGrid,
} from '../domain/reflectivity-grid';
import { TILE_SIZE } from '../render/web-mercator';
import { CONUS_BOUNDS, createReflectivityField, type FieldGrid } from './field';

/** Product name of simulated grids, as the archive metadata shows it. */
export const SIMULATOR_PRODUCT = 'radar-tiles simulator';

/** Zoom whose pixel width caps the fineness of simulated grids (about 1.2 km, like MRMS). */
const FINEST_ZOOM = 7;

/** Options of {@link createSimulatedGrids}. */
export interface SimulatedGridOptions {
  /** Weather seed (the field's default when absent). */
  readonly seed?: number;
  /** Spacing of the field's own grid in degrees (default 0.05). */
  readonly stepDeg?: number;
  /** Deepest zoom the grids will be rendered at: sets their cell size. */
  readonly maxZoom: number;
}

/** Simulated weather as reflectivity grids. */
export interface SimulatedGrids {
  readonly seed: number;
  /** The grid at `epochMs` (deterministic in seed, step, zoom and time). */
  grid(epochMs: number): ReflectivityGrid;
}

/**
 * Creates the source. Cells are `min(stepDeg, pixel width at min(maxZoom, 7))` degrees, fitted
 * so the grid's outer edges are exactly the CONUS box; every cell is covered (the simulator has
 * radar everywhere inside the box, and nothing outside it).
 */
export function createSimulatedGrids(options: SimulatedGridOptions): SimulatedGrids {
  const field = createReflectivityField({ seed: options.seed, stepDeg: options.stepDeg });
  const bounds = CONUS_BOUNDS;
  const pixelDeg = 360 / (TILE_SIZE * 2 ** Math.min(options.maxZoom, FINEST_ZOOM));
  const target = Math.min(options.stepDeg ?? 0.05, pixelDeg);
  const width = Math.ceil((bounds.east - bounds.west) / target);
  const height = Math.ceil((bounds.north - bounds.south) / target);
  const dLon = (bounds.east - bounds.west) / width;
  const dLat = (bounds.north - bounds.south) / height;
  return {
    seed: field.seed,
    grid(epochMs) {
      const values = resample(field.sample(epochMs), bounds, width, height, dLon, dLat);
      return {
        width,
        height,
        west: bounds.west + dLon / 2,
        north: bounds.north - dLat / 2,
        dLon,
        dLat,
        values,
        noCoverage: NO_COVERAGE_MARKER,
        noEcho: NO_ECHO_MARKER,
        product: SIMULATOR_PRODUCT,
        validTimeMs: epochMs,
      };
    },
  };
}

/**
 * Bilinear interpolation of `coarse` at the centres of a `width` x `height` grid of cells
 * `dLon` x `dLat` filling `bounds` (the arithmetic of the field's `dbzAt`, with the per-column
 * and per-row terms computed once).
 */
function resample(
  coarse: FieldGrid,
  bounds: GeoBounds,
  width: number,
  height: number,
  dLon: number,
  dLat: number,
): Float32Array {
  const { cols, rows, stepDeg: step, dbz } = coarse;
  const colCell = new Int32Array(width);
  const colFrac = new Float64Array(width);
  for (let c = 0; c < width; c++) {
    const gx = Math.min(
      cols - 1,
      Math.max(0, (bounds.west + (c + 0.5) * dLon - coarse.bounds.west) / step),
    );
    colCell[c] = Math.min(cols - 2, Math.floor(gx));
    colFrac[c] = gx - colCell[c]!;
  }
  const out = new Float32Array(width * height);
  for (let r = 0; r < height; r++) {
    const gy = Math.min(
      rows - 1,
      Math.max(0, (coarse.bounds.north - (bounds.north - (r + 0.5) * dLat)) / step),
    );
    const r0 = Math.min(rows - 2, Math.floor(gy));
    const fy = gy - r0;
    const top = r0 * cols;
    const bottom = top + cols;
    const row = r * width;
    for (let c = 0; c < width; c++) {
      const c0 = colCell[c]!;
      const fx = colFrac[c]!;
      const a = dbz[top + c0]!;
      const b = dbz[top + c0 + 1]!;
      const d = dbz[bottom + c0]!;
      const e = dbz[bottom + c0 + 1]!;
      const upper = a + (b - a) * fx;
      out[row + c] = upper + (d + (e - d) * fx - upper) * fy;
    }
  }
  return out;
}
