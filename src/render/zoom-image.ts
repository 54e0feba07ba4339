/**
 * Whole-zoom class images for the zooms whose pixels are at least a grid cell: the deepest such
 * zoom is reduced from the grid once (columns, then rows), and every zoom below it is the 2x2
 * maximum of the one above. That is the max pyramid of a frame: each grid cell is read once for
 * all low zooms, instead of once per pixel footprint per zoom.
 */
import type { AxisFootprints } from './footprints';
import { BLOCK_CELLS, BLOCK_SHIFT as IMPORTED_BLOCK_SHIFT, type ClassGrid } from './grid-classes';

// A local copy: imported bindings are property reads (getters under some loaders) in hot loops.
const BLOCK_SHIFT = IMPORTED_BLOCK_SHIFT;

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

  // Columns first: every needed grid row reduced to pixel columns. Cells without echo are 0,
  // the value the arrays start with, so only blocks of the echo map that hold echo are read.
  const reduced = new Uint8Array((rLast - rFirst + 1) * width);
  const { lo, hi } = columns;
  const { blocksWide, echoBlocks } = grid;
  const spans = blockPixelSpans(columns, blocksWide);
  const bandEcho = new Uint8Array(Math.ceil(grid.height / BLOCK_CELLS));
  const runs: number[] = []; // pixel column ranges of one band, [first, last] pairs
  for (let band = rFirst >> BLOCK_SHIFT; band <= rLast >> BLOCK_SHIFT; band++) {
    runs.length = 0;
    for (let bc = 0; bc < blocksWide; bc++) {
      if (echoBlocks[band * blocksWide + bc] === 0 || spans[2 * bc]! < 0) continue;
      const first = spans[2 * bc]!;
      const last = spans[2 * bc + 1]!;
      if (runs.length > 0 && first <= runs[runs.length - 1]! + 1)
        runs[runs.length - 1] = Math.max(runs[runs.length - 1]!, last);
      else runs.push(first, last);
    }
    if (runs.length === 0) continue;
    bandEcho[band] = 1;
    const rEnd = Math.min(rLast, (band + 1) * BLOCK_CELLS - 1);
    for (let r = Math.max(rFirst, band * BLOCK_CELLS); r <= rEnd; r++) {
      const src = r * cells;
      const dst = (r - rFirst) * width;
      for (let k = 0; k < runs.length; k += 2) {
        for (let i = runs[k]!, iEnd = runs[k + 1]!; i <= iEnd; i++) {
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
    }
  }
  // Then rows: each pixel row the maximum of its footprint's reduced rows (bands without echo
  // reduced to 0 and are skipped).
  for (let j = 0; j < height; j++) {
    const a = rows.lo[j]!;
    if (a < 0) continue;
    const b = rows.hi[j]!;
    let echo = false;
    for (let band = a >> BLOCK_SHIFT; band <= b >> BLOCK_SHIFT; band++)
      if (bandEcho[band] !== 0) echo = true;
    if (!echo) continue;
    const out = j * width;
    pixels.set(reduced.subarray((a - rFirst) * width, (a - rFirst + 1) * width), out);
    for (let r = a + 1; r <= b; r++) {
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
 * For each block column of the echo map, the first and last pixel column (pairs, -1 when
 * none) whose footprint reads a cell of that block.
 */
function blockPixelSpans(columns: AxisFootprints, blocksWide: number): Int32Array {
  const spans = new Int32Array(2 * blocksWide).fill(-1);
  for (let i = 0; i < columns.count; i++) {
    const a = columns.lo[i]!;
    if (a < 0) continue;
    for (let bc = a >> BLOCK_SHIFT, end = columns.hi[i]! >> BLOCK_SHIFT; bc <= end; bc++) {
      if (spans[2 * bc]! < 0) spans[2 * bc] = i;
      spans[2 * bc + 1] = i;
    }
  }
  return spans;
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
