/**
 * One web-mercator tile as a 4-bit palette PNG (palette {@link paletteRgba}: index 0
 * transparent, 1..15 the colour steps) or, for a typed frame whose tile holds snow or hail, an
 * 8-bit one in the stored typed palette (`storedPalette`: rain 1..15, snow 17..31, hail 33..47;
 * a typed tile with rain alone stays 4-bit and is byte for byte an untyped one), its indices taken either from a whole-zoom image (low
 * zooms) or straight from the class grid through the zoom's footprints (zooms at or above the
 * grid's resolution).
 * Tiles without echo are reported as absent, so the archive leaves them out: readers show nothing
 * for a missing tile, which is what a radar tile without echo means.
 */
import type { AxisFootprints } from './footprints';
import { boxMayHoldEcho, type ClassGrid } from './grid-classes';
import { storedPalette } from '../palette/colour-schemes';
import { createIndexedPngEncoder } from '../palette/indexed-png';
import { paletteRgba, TYPE_STRIDE } from '../palette/palette';
import { TILE_SIZE as IMPORTED_TILE_SIZE } from './web-mercator';
import type { ZoomImage } from './zoom-image';

/** Options of {@link createTileWriter}. */
export interface TileWriterOptions {
  /** zlib level of the PNGs (default 6). */
  readonly pngLevel?: number;
  /**
   * The palette index of each class (`ClassGrid.paletteOf`) when the classes are typed; without
   * it classes are palette indices 0..15.
   */
  readonly paletteOf?: Uint8Array;
}

/** Writes tiles; holds scratch memory, so use one per thread. */
export interface TileWriter {
  /**
   * PNG of tile (`tx`, `ty`) of `image`'s zoom, or `undefined` when it has no echo (unless
   * `keepEmpty`).
   */
  fromImage(image: ZoomImage, tx: number, ty: number, keepEmpty?: boolean): Buffer | undefined;
  /**
   * PNG of tile (`tx`, `ty`) read from `grid` through the zoom's footprints (which must span
   * the tile), or `undefined` when it has no echo (unless `keepEmpty`).
   */
  fromGrid(
    grid: ClassGrid,
    columns: AxisFootprints,
    rows: AxisFootprints,
    tx: number,
    ty: number,
    keepEmpty?: boolean,
  ): Buffer | undefined;
}

// A local copy: imported bindings are property reads (getters under some loaders) in hot loops.
const TILE_SIZE = IMPORTED_TILE_SIZE;
const ROW_BYTES = 1 + TILE_SIZE / 2; // filter byte (0, none) + two 4-bit indices per byte

/** Creates a tile writer with its own PNG encoder and scratch scanlines. */
export function createTileWriter(options: TileWriterOptions = {}): TileWriter {
  const encoder = createIndexedPngEncoder(paletteRgba(), { level: options.pngLevel ?? 6 });
  const scanlines = new Uint8Array(ROW_BYTES * TILE_SIZE);
  const encode = () => encoder.encode(TILE_SIZE, TILE_SIZE, 4, scanlines);
  if (options.paletteOf !== undefined)
    return createTypedTileWriter(options.paletteOf, options.pngLevel ?? 6, encode, scanlines);

  return {
    fromImage(image, tx, ty, keepEmpty = false) {
      const left = tx * TILE_SIZE - image.x0;
      const top = ty * TILE_SIZE - image.y0;
      const { width, pixels } = image;
      const words = new Uint32Array(pixels.buffer, pixels.byteOffset, pixels.length >> 2);
      let echo = keepEmpty;
      for (let j = 0; j < TILE_SIZE && !echo; j++) {
        const start = ((top + j) * width + left) >> 2;
        for (let w = start, end = start + TILE_SIZE / 4; w < end; w++) {
          if (words[w] !== 0) {
            echo = true;
            break;
          }
        }
      }
      if (!echo) return undefined;
      for (let j = 0; j < TILE_SIZE; j++) {
        const start = (top + j) * width + left;
        const out = j * ROW_BYTES + 1;
        for (let b = 0; b < TILE_SIZE / 2; b++)
          scanlines[out + b] = (pixels[start + 2 * b]! << 4) | pixels[start + 2 * b + 1]!;
      }
      return encode();
    },

    fromGrid(grid, columns, rows, tx, ty, keepEmpty = false) {
      const { i0, j0, cols, mayHoldEcho } = gridWindow(grid, columns, rows, tx, ty);
      if (!mayHoldEcho && !keepEmpty) return undefined;
      const { width: cells, classes } = grid;
      const { lo, hi } = columns;
      let echo = false;
      for (let j = 0; j < TILE_SIZE; j++) {
        const out = j * ROW_BYTES + 1;
        const a = rows.lo[j0 + j]!;
        if (a < 0) {
          scanlines.fill(0, out, out + TILE_SIZE / 2);
          continue;
        }
        const b = rows.hi[j0 + j]!;
        if (cols === undefined || !boxMayHoldEcho(grid, cols[0], cols[1], a, b)) {
          scanlines.fill(0, out, out + TILE_SIZE / 2);
          continue;
        }
        let pair = 0;
        for (let i = 0; i < TILE_SIZE; i++) {
          const c0 = lo[i0 + i]!;
          const m = c0 >= 0 ? boxMax(classes, cells, a, b, c0, hi[i0 + i]!) : 0;
          if (i & 1) scanlines[out + (i >> 1)] = pair | m;
          else pair = m << 4;
          if (m !== 0) echo = true;
        }
      }
      return echo || keepEmpty ? encode() : undefined;
    },
  };
}

/**
 * The writer of typed frames: each pixel's class (the maximum, as for untyped tiles) goes
 * through `paletteOf` into one byte, then the tile is packed 4-bit when it holds rain alone and
 * 8-bit in the typed palette otherwise.
 */
function createTypedTileWriter(
  paletteOf: Uint8Array,
  level: number,
  encode4: () => Buffer,
  scanlines4: Uint8Array,
): TileWriter {
  const typed = createIndexedPngEncoder(storedPalette(), { level });
  const rowBytes8 = 1 + TILE_SIZE;
  const scanlines8 = new Uint8Array(rowBytes8 * TILE_SIZE);
  const pixels = new Uint8Array(TILE_SIZE * TILE_SIZE);

  /** PNG of `pixels` (palette indices), the smallest depth that holds them. */
  const pack = (top: number): Buffer => {
    if (top < TYPE_STRIDE) {
      for (let j = 0; j < TILE_SIZE; j++) {
        const at = j * TILE_SIZE;
        const out = j * ROW_BYTES + 1;
        for (let b = 0; b < TILE_SIZE / 2; b++)
          scanlines4[out + b] = (pixels[at + 2 * b]! << 4) | pixels[at + 2 * b + 1]!;
      }
      return encode4();
    }
    for (let j = 0; j < TILE_SIZE; j++)
      scanlines8.set(pixels.subarray(j * TILE_SIZE, (j + 1) * TILE_SIZE), j * rowBytes8 + 1);
    return typed.encode(TILE_SIZE, TILE_SIZE, 8, scanlines8);
  };

  return {
    fromImage(image, tx, ty, keepEmpty = false) {
      const left = tx * TILE_SIZE - image.x0;
      const top = ty * TILE_SIZE - image.y0;
      const { width, pixels: classes } = image;
      let highest = 0;
      for (let j = 0; j < TILE_SIZE; j++) {
        const start = (top + j) * width + left;
        const out = j * TILE_SIZE;
        for (let i = 0; i < TILE_SIZE; i++) {
          const index = paletteOf[classes[start + i]!]!;
          pixels[out + i] = index;
          if (index > highest) highest = index;
        }
      }
      return highest === 0 && !keepEmpty ? undefined : pack(highest);
    },

    fromGrid(grid, columns, rows, tx, ty, keepEmpty = false) {
      const { i0, j0, cols, mayHoldEcho } = gridWindow(grid, columns, rows, tx, ty);
      if (!mayHoldEcho && !keepEmpty) return undefined;
      const { width: cells, classes } = grid;
      const { lo, hi } = columns;
      let highest = 0;
      pixels.fill(0);
      for (let j = 0; j < TILE_SIZE; j++) {
        const out = j * TILE_SIZE;
        const a = rows.lo[j0 + j]!;
        if (a < 0) continue;
        const b = rows.hi[j0 + j]!;
        if (cols === undefined || !boxMayHoldEcho(grid, cols[0], cols[1], a, b)) continue;
        for (let i = 0; i < TILE_SIZE; i++) {
          const c0 = lo[i0 + i]!;
          if (c0 < 0) continue;
          const index = paletteOf[boxMax(classes, cells, a, b, c0, hi[i0 + i]!)]!;
          pixels[out + i] = index;
          if (index > highest) highest = index;
        }
      }
      return highest === 0 && !keepEmpty ? undefined : pack(highest);
    },
  };
}

/** Where a tile reads the class grid: see {@link gridWindow}. */
interface GridWindow {
  /** The tile's first column and row in the footprints. */
  readonly i0: number;
  readonly j0: number;
  /** The grid columns the tile's pixels read, or undefined when none. */
  readonly cols: [number, number] | undefined;
  /** False only when the box of cells the tile reads surely holds no echo. */
  readonly mayHoldEcho: boolean;
}

/**
 * Where tile (`tx`, `ty`) reads `grid` through the zoom's footprints; both writers start from
 * it, so a tile without echo is skipped before any pixel is read.
 */
function gridWindow(
  grid: ClassGrid,
  columns: AxisFootprints,
  rows: AxisFootprints,
  tx: number,
  ty: number,
): GridWindow {
  const i0 = tx * TILE_SIZE - columns.first;
  const j0 = ty * TILE_SIZE - rows.first;
  const cols = span(columns, i0);
  const rws = span(rows, j0);
  const mayHoldEcho =
    cols !== undefined &&
    rws !== undefined &&
    boxMayHoldEcho(grid, cols[0], cols[1], rws[0], rws[1]);
  return { i0, j0, cols, mayHoldEcho };
}

/**
 * The highest class in the box of cells rows `a..b`, columns `c0..c1` of a grid `cells` wide:
 * what one pixel shows (the strongest echo it covers), in both writers.
 */
function boxMax(
  classes: Uint8Array,
  cells: number,
  a: number,
  b: number,
  c0: number,
  c1: number,
): number {
  let m = 0;
  for (let r = a; r <= b; r++) {
    const row = r * cells;
    for (let c = c0; c <= c1; c++) {
      const v = classes[row + c]!;
      if (v > m) m = v;
    }
  }
  return m;
}

/** The grid index range the tile's 256 pixels from `start` read, or undefined when none. */
function span(axis: AxisFootprints, start: number): [number, number] | undefined {
  let first = -1;
  let last = -1;
  for (let i = start; i < start + TILE_SIZE; i++) {
    if (axis.lo[i]! < 0) continue;
    if (first < 0) first = axis.lo[i]!;
    last = axis.hi[i]!;
  }
  return first < 0 ? undefined : [first, last];
}
