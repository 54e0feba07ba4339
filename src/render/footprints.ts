/**
 * Which grid cells each tile pixel shows: the resampling rule, computed once per zoom and axis.
 *
 * A pixel's footprint is the set of cells whose centres lie inside the pixel (west and north
 * edges included). When the pixel is smaller than a cell that set may be empty; the footprint is
 * then the single cell under the pixel's centre, or nothing when the centre is outside the grid.
 * The pixel shows the maximum class of its footprint. So at and above the grid's resolution a
 * pixel samples the cell under its centre, and below it (low zooms) it shows the strongest echo
 * inside it, as radar displays do, so storm cores stay visible when zoomed out.
 *
 * The rule is separable: a footprint is a column interval times a row interval, computed here
 * per axis as index maps. When no pixel of a zoom needed the fallback in either axis, every
 * footprint of the zoom below is exactly the union of its four children's, which is what lets a
 * frame build low zooms by halving (see zoom-image.ts).
 */
import type { ReflectivityGrid } from '../domain/reflectivity-grid';
import { TILE_SIZE, tileYToLat } from './web-mercator';

const { ceil, floor, max, min } = Math;

/** Footprints of a run of pixels along one axis at one zoom. */
export interface AxisFootprints {
  /** World pixel index (column or row at this zoom) of the first pixel. */
  readonly first: number;
  /** Pixels in the run. */
  readonly count: number;
  /** First grid index (column or row) of pixel `first + i`'s footprint, -1 when it is empty. */
  readonly lo: Int32Array;
  /** Last grid index of the footprint, inclusive (-1 when empty). */
  readonly hi: Int32Array;
  /**
   * True when no pixel needed the fallback (every footprint is the set of cell centres inside
   * its pixel, possibly empty outside the grid): the zoom below can then be built from this one.
   */
  readonly nested: boolean;
}

/**
 * Column footprints of world pixel columns `first .. first + count - 1` at zoom `z`. Pixel X
 * covers longitudes [X / N * 360 - 180, (X + 1) / N * 360 - 180) with N = 256 * 2^z.
 */
export function columnFootprints(
  grid: ReflectivityGrid,
  z: number,
  first: number,
  count: number,
): AxisFootprints {
  const world = TILE_SIZE * 2 ** z;
  const edge = (x: number) => (x / world) * 360 - 180;
  return axisFootprints(grid.west, grid.dLon, grid.width, first, count, edge, +1);
}

/**
 * Row footprints of world pixel rows `first .. first + count - 1` at zoom `z`. Pixel Y covers
 * latitudes (lat(Y + 1), lat(Y)] of the web-mercator row edges.
 */
export function rowFootprints(
  grid: ReflectivityGrid,
  z: number,
  first: number,
  count: number,
): AxisFootprints {
  const edge = (y: number) => tileYToLat(y / TILE_SIZE, z);
  return axisFootprints(grid.north, grid.dLat, grid.height, first, count, edge, -1);
}

/**
 * Shared arithmetic of both axes in "grid index" space: cell i is centred at
 * `origin + sign * i * step`, and pixel p spans edge(p) .. edge(p + 1) in the same direction.
 * Cell i lies in pixel p when t(edge(p)) <= i < t(edge(p + 1)), with t(v) = sign * (v - origin) / step.
 */
function axisFootprints(
  origin: number,
  step: number,
  cells: number,
  first: number,
  count: number,
  edge: (pixel: number) => number,
  sign: 1 | -1,
): AxisFootprints {
  const lo = new Int32Array(count);
  const hi = new Int32Array(count);
  const t = (v: number) => (sign * (v - origin)) / step;
  let nested = true;
  let next = ceil(t(edge(first)));
  for (let i = 0; i < count; i++) {
    const start = next;
    next = ceil(t(edge(first + i + 1)));
    const a = max(0, start);
    const b = min(cells - 1, next - 1);
    if (a <= b) {
      lo[i] = a;
      hi[i] = b;
      continue;
    }
    const under = floor(t(edge(first + i + 0.5)) + 0.5);
    if (under >= 0 && under < cells) {
      lo[i] = under;
      hi[i] = under;
      nested = false;
    } else {
      lo[i] = -1;
      hi[i] = -1;
    }
  }
  return { first, count, lo, hi, nested };
}
