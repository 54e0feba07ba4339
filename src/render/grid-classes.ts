/**
 * First pass of a frame: every grid cell reduced to its class (one byte, 0 transparent; without
 * a type grid the palette index 1..15 of its colour step, see `paletteIndex`; with one
 * `step << 2 | type`, so the strongest step wins a maximum and, at equal steps, hail over snow
 * over rain), plus coarse maps of where echo and coverage
 * exist, and counts of each kind of cell. Everything after this pass works on bytes, whose
 * maximum is what a pixel shows, and skips regions without echo by looking at the coarse map.
 */
import { typeOrdinal, type PrecipTypeGrid } from '../domain/precip-type-grid';
import type { ReflectivityGrid } from '../domain/reflectivity-grid';
import { MIN_VISIBLE_DBZ, REFLECTIVITY_PALETTE, TYPE_STRIDE } from '../palette/palette';

// Local bindings for the hot loops (an exported const is read as a property where it is used).
const SHIFT = 4;
/** log2 of the cells per side of one block of the coarse maps. */
export const BLOCK_SHIFT = SHIFT;
/** Cells per side of one block of the coarse maps. */
export const BLOCK_CELLS = 1 << SHIFT;
const BLOCK = 1 << SHIFT;
// Local copies: imported bindings are property reads (getters under some loaders) in hot loops.
const MIN_VISIBLE = MIN_VISIBLE_DBZ;
const TOP_INDEX = REFLECTIVITY_PALETTE.length;

/** A grid's cells as classes. */
export interface ClassGrid {
  readonly width: number;
  readonly height: number;
  /** `width * height` classes, same layout as the grid's values. */
  readonly classes: Uint8Array;
  /**
   * The palette index of each class (256 entries), or `undefined` when classes are palette
   * indices already (a grid without type).
   */
  readonly paletteOf: Uint8Array | undefined;
  /** Blocks per row of the block maps. */
  readonly blocksWide: number;
  /**
   * 1 where the {@link BLOCK_CELLS}-cell square block (row-major, block (0,0) at cell (0,0))
   * holds a cell with echo, else 0. Lets tile rendering skip regions without echo unread.
   */
  readonly echoBlocks: Uint8Array;
  /** 1 where the block holds a cell with radar coverage, else 0. */
  readonly coveredBlocks: Uint8Array;
  /** Cells of each kind: no coverage, covered without visible echo, echo. */
  readonly counts: { readonly noCoverage: number; readonly noEcho: number; readonly echo: number };
}

/** Palette index of each typed class `step << 2 | type`: `16 * type + step`. */
const TYPED_PALETTE = ((): Uint8Array => {
  const lut = new Uint8Array(256);
  for (let step = 1; step <= REFLECTIVITY_PALETTE.length; step++)
    for (let type = 0; type < 3; type++) lut[(step << 2) | type] = TYPE_STRIDE * type + step;
  return lut;
})();

/**
 * Classifies every cell: the no-coverage marker and NaN count as no coverage, the no-echo
 * marker and values below the palette as no echo (both transparent), the rest as their colour
 * step, and with `types` (the same shape, checked by the caller) as their step and the type of
 * the flag code under them (`typeOrdinal`).
 */
export function classifyGrid(grid: ReflectivityGrid, types?: PrecipTypeGrid): ClassGrid {
  const { width, height, values } = grid;
  const noCoverage = Math.fround(grid.noCoverage);
  const top = 5 * TOP_INDEX;
  const classes = new Uint8Array(width * height); // 0 unless echo
  const blocksWide = Math.ceil(width / BLOCK_CELLS);
  const blocks = blocksWide * Math.ceil(height / BLOCK_CELLS);
  const echoBlocks = new Uint8Array(blocks);
  const coveredBlocks = new Uint8Array(blocks);
  const codes = types?.codes;
  let uncovered = 0;
  let echo = 0;
  for (let r = 0; r < height; r++) {
    const row = r * width;
    const blockRow = (r >> SHIFT) * blocksWide;
    // One block-wide run at a time, so the block maps are written once per run, not per cell.
    for (let start = 0, bc = 0; start < width; start += BLOCK, bc++) {
      const end = start + BLOCK < width ? start + BLOCK : width;
      let echoHere = 0;
      let uncoveredHere = 0;
      for (let c = start; c < end; c++) {
        const v = values[row + c]!;
        if (v >= MIN_VISIBLE) {
          const step = v >= top ? TOP_INDEX : (v / 5) | 0;
          classes[row + c] =
            codes === undefined ? step : (step << 2) | typeOrdinal(codes[row + c]!);
          echoHere++;
        } else if (v === noCoverage || v !== v) uncoveredHere++;
      }
      if (echoHere !== 0) echoBlocks[blockRow + bc] = 1;
      if (uncoveredHere !== end - start) coveredBlocks[blockRow + bc] = 1;
      echo += echoHere;
      uncovered += uncoveredHere;
    }
  }
  const counts = { noCoverage: uncovered, noEcho: width * height - uncovered - echo, echo };
  const paletteOf = codes === undefined ? undefined : TYPED_PALETTE;
  return { width, height, classes, paletteOf, blocksWide, echoBlocks, coveredBlocks, counts };
}

/** Whether any cell of the inclusive box c0..c1 x r0..r1 may hold echo (by the block map). */
export function boxMayHoldEcho(
  grid: ClassGrid,
  c0: number,
  c1: number,
  r0: number,
  r1: number,
): boolean {
  const { blocksWide, echoBlocks } = grid;
  for (let br = r0 >> SHIFT, brEnd = r1 >> SHIFT; br <= brEnd; br++) {
    const row = br * blocksWide;
    for (let bc = c0 >> SHIFT, bcEnd = c1 >> SHIFT; bc <= bcEnd; bc++)
      if (echoBlocks[row + bc] !== 0) return true;
  }
  return false;
}

/**
 * The cell box (first/last column and row, inclusive) of the blocks holding covered cells, to
 * {@link BLOCK_CELLS} cells, or `undefined` when no cell is covered.
 */
export function coveredBox(
  grid: ClassGrid,
): { c0: number; c1: number; r0: number; r1: number } | undefined {
  const { blocksWide, coveredBlocks, width, height } = grid;
  let bc0 = Infinity;
  let bc1 = -1;
  let br0 = Infinity;
  let br1 = -1;
  for (let i = 0; i < coveredBlocks.length; i++) {
    if (coveredBlocks[i] === 0) continue;
    const br = Math.floor(i / blocksWide);
    const bc = i - br * blocksWide;
    if (bc < bc0) bc0 = bc;
    if (bc > bc1) bc1 = bc;
    if (br < br0) br0 = br;
    br1 = br;
  }
  if (bc1 < 0) return undefined;
  return {
    c0: bc0 * BLOCK_CELLS,
    c1: Math.min(width - 1, (bc1 + 1) * BLOCK_CELLS - 1),
    r0: br0 * BLOCK_CELLS,
    r1: Math.min(height - 1, (br1 + 1) * BLOCK_CELLS - 1),
  };
}
