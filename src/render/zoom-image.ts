/**
 * Whole-zoom class images for the zooms whose pixels are at least a grid cell: the deepest such
 * zoom is reduced from the grid once (columns, then rows), and every zoom below it is the 2x2
 * maximum of the one above. That is the max pyramid of a frame: each grid cell is read once for
 * all low zooms, instead of once per pixel footprint per zoom.
 */
import type { AxisFootprints } from './footprints';
import type { ClassGrid } from './grid-classes';

/** The tile classes of a run of whole tiles at one zoom, one byte per pixel, row-major. */
export interface ZoomImage {
  readonly z: number;
  /** World pixel column and row of pixel (0, 0). Multiples of 256 (whole tiles). */
  readonly x0: number;
  readonly y0: number;
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8Array;
}

/**
 * The image of zoom `z` straight from the grid: each pixel the maximum class of its footprint
 * (`columns` x `rows`, which must span the image), no coverage where the footprint is empty.
 */
export function reduceGrid(
  grid: ClassGrid,
  z: number,
  columns: AxisFootprints,
  rows: AxisFootprints,
): ZoomImage {
  const { width: cells, classes } = grid;
  const width = columns.count;
  const height = rows.count;
  // Rows of the grid any pixel row reads: the footprints are ordered, so a contiguous range.
  let rFirst = -1;
  let rLast = -2;
  for (let i = 0; i < height; i++) {
    if (rows.lo[i]! < 0) continue;
    if (rFirst < 0) rFirst = rows.lo[i]!;
    rLast = rows.hi[i]!;
  }
  const pixels = new Uint8Array(width * height); // 0 = no coverage
  if (rFirst < 0) return { z, x0: columns.first, y0: rows.first, width, height, pixels };

  // Columns first: every needed grid row reduced to pixel columns.
  const reduced = new Uint8Array((rLast - rFirst + 1) * width);
  const { lo, hi } = columns;
  for (let r = rFirst; r <= rLast; r++) {
    const src = r * cells;
    const dst = (r - rFirst) * width;
    for (let i = 0; i < width; i++) {
      const a = lo[i]!;
      if (a < 0) continue;
      let m = classes[src + a]!;
      for (let c = a + 1, b = hi[i]!; c <= b; c++) {
        const v = classes[src + c]!;
        if (v > m) m = v;
      }
      reduced[dst + i] = m;
    }
  }
  // Then rows: each pixel row the maximum of its footprint's reduced rows.
  for (let j = 0; j < height; j++) {
    const a = rows.lo[j]!;
    if (a < 0) continue;
    const out = j * width;
    pixels.set(reduced.subarray((a - rFirst) * width, (a - rFirst + 1) * width), out);
    for (let r = a + 1, b = rows.hi[j]!; r <= b; r++) {
      const src = (r - rFirst) * width;
      for (let i = 0; i < width; i++) {
        const v = reduced[src + i]!;
        if (v > pixels[out + i]!) pixels[out + i] = v;
      }
    }
  }
  return { z, x0: columns.first, y0: rows.first, width, height, pixels };
}

/**
 * The image of zoom `above.z - 1` over world pixels `x0 .. x0 + width - 1`,
 * `y0 .. y0 + height - 1`: each pixel the maximum of its four children in `above` (children
 * outside `above` count as no coverage). Exact when `above`'s footprints were nested.
 */
export function halveImage(
  above: ZoomImage,
  x0: number,
  y0: number,
  width: number,
  height: number,
): ZoomImage {
  const pixels = new Uint8Array(width * height); // 0 = no coverage
  const src = above.pixels;
  const aw = above.width;
  // Pixel columns of this image whose children lie in `above`, and their first child's offset.
  const iFirst = Math.max(0, Math.ceil((above.x0 - 2 * x0) / 2));
  const iEnd = Math.min(width, Math.floor((above.x0 + aw - 2 * x0) / 2));
  for (let j = 0; j < height; j++) {
    const childRow = 2 * (y0 + j) - above.y0;
    if (childRow < 0 || childRow + 1 >= above.height) continue;
    const top = childRow * aw;
    const bottom = top + aw;
    const out = j * width;
    for (let i = iFirst; i < iEnd; i++) {
      const c = 2 * (x0 + i) - above.x0;
      let m = src[top + c]!;
      const b = src[top + c + 1]!;
      const d = src[bottom + c]!;
      const e = src[bottom + c + 1]!;
      if (b > m) m = b;
      if (d > m) m = d;
      if (e > m) m = e;
      pixels[out + i] = m;
    }
  }
  return { z: above.z - 1, x0, y0, width, height, pixels };
}
