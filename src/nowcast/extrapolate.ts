/**
 * Backward semi-Lagrangian extrapolation. The forecast `steps` time steps ahead, at a cell x,
 * is the latest grid's value where the trajectory through x started: x stepped back along the
 * motion field `steps` times (one step per observed time step, the velocity read where the
 * trajectory is at each step). Trajectories are traced on the coarse motion grid and their
 * displacements interpolated to every full-resolution cell; the latest grid is then read once
 * per lead at the nearest cell (never interpolated step after step, which would smear the
 * echoes a little more every step, and never between a value and an unknown cell). A
 * trajectory that starts outside the grid, or on an unknown cell, gives NaN: no coverage, not
 * "no echo".
 */
import type { Grid, GridShape } from './grid';
import type { MotionField } from './motion';

/** Displacement (cells) from each motion-grid point back to where its trajectory started. */
export interface Displacement {
  readonly width: number;
  readonly height: number;
  readonly factor: number;
  readonly dx: Float32Array;
  readonly dy: Float32Array;
}

/** Bilinear sample of a motion-grid array at motion-grid coordinates (x, y), edges clamped. */
function sample(values: Float32Array, width: number, height: number, x: number, y: number): number {
  const cx = Math.min(width - 1, Math.max(0, x));
  const cy = Math.min(height - 1, Math.max(0, y));
  const x0 = Math.min(width - 2, Math.floor(cx));
  const y0 = Math.min(height - 2, Math.floor(cy));
  if (x0 < 0 || y0 < 0) return values[Math.round(cy) * width + Math.round(cx)]!;
  const fx = cx - x0;
  const fy = cy - y0;
  const i = y0 * width + x0;
  const top = values[i]! + fx * (values[i + 1]! - values[i]!);
  const bottom = values[i + width]! + fx * (values[i + width + 1]! - values[i + width]!);
  return top + fy * (bottom - top);
}

/**
 * Where `sample` reads along one axis for each of `n` full-resolution cells: the lower motion
 * cell (clamped to 0..m-2) and the fraction towards the next, for a motion grid of `m >= 2`
 * cells of `factor` cells each.
 */
function axisWeights(
  n: number,
  factor: number,
  m: number,
): { first: Int32Array; fraction: Float64Array } {
  const first = new Int32Array(n);
  const fraction = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const c = Math.min(m - 1, Math.max(0, (k + 0.5) / factor - 0.5));
    const lower = Math.min(m - 2, Math.floor(c));
    first[k] = lower;
    fraction[k] = c - lower;
  }
  return { first, fraction };
}

/**
 * Traces every motion-grid point back `steps` steps and returns the displacements after each
 * step listed in `leads` (steps, ascending), one {@link Displacement} per lead.
 */
export function backwardDisplacements(
  motion: MotionField,
  leads: readonly number[],
): Displacement[] {
  return [...traceBack(motion, leads)];
}

/**
 * The displacements of {@link backwardDisplacements}, one lead at a time as the trace reaches
 * it, so a caller that uses each lead and moves on holds one lead's arrays, not all of them.
 */
export function* traceBack(motion: MotionField, leads: readonly number[]): Generator<Displacement> {
  const { width, height, factor, u, v } = motion;
  const n = width * height;
  // Positions in full-resolution cells, of motion-grid points at their block centres.
  const px = new Float32Array(n);
  const py = new Float32Array(n);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      px[y * width + x] = (x + 0.5) * factor - 0.5;
      py[y * width + x] = (y + 0.5) * factor - 0.5;
    }
  const startX = px.slice();
  const startY = py.slice();
  const last = leads.length === 0 ? 0 : Math.max(...leads);
  for (let step = 1; step <= last; step++) {
    for (let i = 0; i < n; i++) {
      // Midpoint rule: the velocity half a step back, read on the motion grid.
      const gx = (px[i]! + 0.5) / factor - 0.5;
      const gy = (py[i]! + 0.5) / factor - 0.5;
      const hu = sample(u, width, height, gx, gy);
      const hv = sample(v, width, height, gx, gy);
      const mx = (px[i]! - hu / 2 + 0.5) / factor - 0.5;
      const my = (py[i]! - hv / 2 + 0.5) / factor - 0.5;
      px[i] = px[i]! - sample(u, width, height, mx, my);
      py[i] = py[i]! - sample(v, width, height, mx, my);
    }
    if (leads.includes(step)) {
      const dx = new Float32Array(n);
      const dy = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        dx[i] = px[i]! - startX[i]!;
        dy[i] = py[i]! - startY[i]!;
      }
      yield { width, height, factor, dx, dy };
    }
  }
}

/**
 * The forecast grid: each cell of `latest` read where its trajectory (the displacement
 * interpolated from the motion grid) started; NaN when that is outside the grid or unknown.
 */
export function advect(latest: Grid, displacement: Displacement): Grid {
  const [values] = advectLayers(latest, [latest.values], displacement);
  return { width: latest.width, height: latest.height, values: values! };
}

/**
 * One or two layers of one grid moved along the same trajectories: each forecast cell of each
 * layer is read at the one cell its trajectory started from (a precipitation-type layer goes
 * where its echo goes, at no cost of a second trace). Cells whose trajectory starts outside the
 * grid are NaN in every layer (0 in an Int8Array layer, which has no NaN; such a cell has no
 * coverage, so its type says nothing). `into` (one array per layer, the grid's size) is written and
 * returned instead of new arrays, so a caller moving a CONUS grid to six leads reuses one.
 */
export function advectLayers(
  shape: GridShape,
  layers: readonly [Float32Array] | readonly [Float32Array, Float32Array | Int8Array],
  displacement: Displacement,
  into?: readonly [Float32Array] | readonly [Float32Array, Float32Array | Int8Array],
): [Float32Array] | [Float32Array, Float32Array | Int8Array] {
  const { width, height } = shape;
  const { factor, dx, dy } = displacement;
  const mw = displacement.width;
  const mh = displacement.height;
  if (mw !== Math.ceil(width / factor) || mh !== Math.ceil(height / factor))
    throw new RangeError('motion grid does not match the grid');
  if (layers.some((layer) => layer.length !== width * height))
    throw new RangeError('a layer does not match the grid');
  const first = layers[0];
  const second = layers[1];
  if (into && (into.length !== layers.length || into.some((a) => a.length !== width * height)))
    throw new RangeError('the output arrays do not match the layers');
  const outFirst = into?.[0] ?? new Float32Array(width * height);
  const outSecond =
    second &&
    (into?.[1] ??
      (second instanceof Int8Array
        ? new Int8Array(width * height)
        : new Float32Array(width * height)));
  const write = (at: number, sx: number, sy: number) => {
    const inside = sx >= 0 && sx < width && sy >= 0 && sy < height;
    const from = sy * width + sx;
    outFirst[at] = inside ? first[from]! : NaN;
    if (outSecond) outSecond[at] = inside ? second![from]! : NaN;
  };
  if (mw < 2 || mh < 2) {
    for (let row = 0; row < height; row++) {
      const gy = (row + 0.5) / factor - 0.5;
      for (let column = 0; column < width; column++) {
        const gx = (column + 0.5) / factor - 0.5;
        const sx = Math.round(column + sample(dx, mw, mh, gx, gy));
        write(row * width + column, sx, Math.round(row + sample(dy, mw, mh, gx, gy)));
      }
    }
    return outSecond ? [outFirst, outSecond] : [outFirst];
  }
  // The bilinear weights of `sample`, worked out once per column and once per row (the same
  // arithmetic, so the same values): a CONUS lead reads 24.5 million cells.
  const columns = axisWeights(width, factor, mw);
  const rows = axisWeights(height, factor, mh);
  for (let row = 0; row < height; row++) {
    const fy = rows.fraction[row]!;
    const base = rows.first[row]! * mw;
    for (let column = 0; column < width; column++) {
      const i = base + columns.first[column]!;
      const fx = columns.fraction[column]!;
      const topX = dx[i]! + fx * (dx[i + 1]! - dx[i]!);
      const bottomX = dx[i + mw]! + fx * (dx[i + mw + 1]! - dx[i + mw]!);
      const topY = dy[i]! + fx * (dy[i + 1]! - dy[i]!);
      const bottomY = dy[i + mw]! + fx * (dy[i + mw + 1]! - dy[i + mw]!);
      const sx = Math.round(column + (topX + fy * (bottomX - topX)));
      const sy = Math.round(row + (topY + fy * (bottomY - topY)));
      const at = row * width + column;
      if (sx >= 0 && sx < width && sy >= 0 && sy < height) {
        outFirst[at] = first[sy * width + sx]!;
        if (outSecond) outSecond[at] = second![sy * width + sx]!;
      } else {
        outFirst[at] = NaN;
        if (outSecond) outSecond[at] = NaN;
      }
    }
  }
  return outSecond ? [outFirst, outSecond] : [outFirst];
}
