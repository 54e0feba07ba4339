/**
 * A grid reduced to the small 8-bit echo image the motion estimate works on: each output pixel
 * is the mean echo strength of a `factor` x `factor` block of the grid, scaled so that the
 * product's echo floor is 0 and its ceiling 255 (decibels for rates, so that a storm's core and
 * its light rain both carry structure). Unknown cells (NaN) and cells below the floor count as
 * no echo: a coverage edge is never mistaken for a moving echo edge of its own.
 */
import type { EchoScale, Grid } from './grid';

/** An 8-bit image, row-major. */
export interface EchoImage {
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8Array;
  /** Grid cells per image pixel along each axis. */
  readonly factor: number;
}

/** The echo strength of one value on a 0..1 scale (0 for unknown or below the floor). */
function strengthOf(scale: EchoScale): (value: number) => number {
  if (scale.logarithmic) {
    const low = Math.log10(scale.floor);
    const span = Math.log10(scale.ceiling) - low;
    return (v) => (v >= scale.floor ? Math.min(1, (Math.log10(v) - low) / span) : 0);
  }
  const span = scale.ceiling - scale.floor;
  return (v) => (v >= scale.floor ? Math.min(1, (v - scale.floor) / span) : 0);
}

/**
 * The echo image of `grid` at 1/`factor` of its resolution (sizes rounded up; a partial block
 * at the right or bottom edge averages the cells it has).
 */
export function echoImage(grid: Grid, scale: EchoScale, factor: number): EchoImage {
  if (!Number.isInteger(factor) || factor < 1)
    throw new RangeError(`factor ${factor} must be >= 1`);
  const strength = strengthOf(scale);
  const width = Math.ceil(grid.width / factor);
  const height = Math.ceil(grid.height / factor);
  const sums = new Float32Array(width);
  const counts = new Uint16Array(width);
  const pixels = new Uint8Array(width * height);
  const values = grid.values;
  for (let y = 0; y < height; y++) {
    sums.fill(0);
    counts.fill(0);
    const rowEnd = Math.min(grid.height, (y + 1) * factor);
    for (let row = y * factor; row < rowEnd; row++) {
      const base = row * grid.width;
      for (let column = 0; column < grid.width; column++) {
        const x = (column / factor) | 0;
        sums[x]! += strength(values[base + column]!);
        counts[x]!++;
      }
    }
    for (let x = 0; x < width; x++)
      pixels[y * width + x] = Math.round((255 * sums[x]!) / counts[x]!);
  }
  return { width, height, pixels, factor };
}
