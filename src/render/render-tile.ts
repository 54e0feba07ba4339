/**
 * One web-mercator tile of a frame as a 4-bit palette PNG. Pixels interpolate the frame's
 * coarse grid bilinearly (same arithmetic as `dbzAt`) and take the NWS colour of their dBZ;
 * tiles with nothing to draw are reported as absent so the archive can leave them out.
 */
import { TILE_SIZE, tileYToLat } from './web-mercator';
import type { FieldGrid } from '../sim/field';
import { createIndexedPngEncoder } from './indexed-png';
import { MIN_VISIBLE_DBZ, paletteRgba, REFLECTIVITY_PALETTE } from './palette';

// Local bindings: these run in hot loops, and inside vm contexts (jest) a global lookup such as
// `Math` costs far more than a closure variable.
const { floor, min } = Math;

/** Renders tiles; holds scratch buffers, so use one per thread. */
export interface TileRenderer {
  /**
   * PNG bytes of tile z/x/y (256 x 256, palette of {@link paletteRgba}), or `undefined` when
   * every pixel is transparent: empty tiles are omitted from archives (readers show nothing
   * for a missing tile, which is what an empty radar tile means).
   */
  render(grid: FieldGrid, z: number, x: number, y: number): Buffer | undefined;
}

/** Options of {@link createTileRenderer}. */
export interface TileRendererOptions {
  /** zlib level of the PNGs (default 6). */
  readonly pngLevel?: number;
}

const ROW_BYTES = 1 + TILE_SIZE / 2; // filter byte + 4-bit indices
const TOP_INDEX = REFLECTIVITY_PALETTE.length;

/** Creates a tile renderer with its own PNG encoder and scratch memory. */
export function createTileRenderer(options: TileRendererOptions = {}): TileRenderer {
  const encoder = createIndexedPngEncoder(paletteRgba(), { level: options.pngLevel ?? 6 });
  const scanlines = new Uint8Array(ROW_BYTES * TILE_SIZE);
  const colCell = new Int32Array(TILE_SIZE);
  const colFrac = new Float64Array(TILE_SIZE);

  return {
    render(grid, z, x, y) {
      const { west, north } = grid.bounds;
      const { stepDeg: step, cols, rows, dbz } = grid;
      const worldPx = TILE_SIZE * 2 ** z;

      let firstCol = TILE_SIZE;
      let lastCol = -1;
      for (let px = 0; px < TILE_SIZE; px++) {
        const lon = ((x * TILE_SIZE + px + 0.5) / worldPx) * 360 - 180;
        const gx = (lon - west) / step;
        if (gx >= 0 && gx <= cols - 1) {
          const c0 = min(cols - 2, floor(gx));
          colCell[px] = c0;
          colFrac[px] = gx - c0;
          if (px < firstCol) firstCol = px;
          lastCol = px;
        } else {
          colCell[px] = -1;
        }
      }
      if (lastCol < 0) return undefined;

      // Grid rows this tile can reach; if none of their cells is visible, nothing to draw.
      const rowOf = (py: number) => (north - tileYToLat(y + (py + 0.5) / TILE_SIZE, z)) / step;
      const gyTop = Math.max(0, rowOf(0));
      const gyBottom = min(rows - 1, rowOf(TILE_SIZE - 1));
      if (gyTop > rows - 1 || gyBottom < 0) return undefined;
      if (
        !anyVisible(
          grid,
          colCell[firstCol]!,
          colCell[lastCol]! + 1,
          floor(gyTop),
          Math.ceil(gyBottom),
        )
      ) {
        return undefined;
      }

      scanlines.fill(0);
      let drawn = 0;
      for (let py = 0; py < TILE_SIZE; py++) {
        const gy = rowOf(py);
        if (!(gy >= 0 && gy <= rows - 1)) continue;
        const r0 = min(rows - 2, floor(gy));
        const fy = gy - r0;
        const top = r0 * cols;
        const bottom = top + cols;
        const out = py * ROW_BYTES + 1;
        for (let px = firstCol; px <= lastCol; px++) {
          const c0 = colCell[px]!;
          if (c0 < 0) continue;
          const fx = colFrac[px]!;
          const a = dbz[top + c0]!;
          const b = dbz[top + c0 + 1]!;
          const c = dbz[bottom + c0]!;
          const d = dbz[bottom + c0 + 1]!;
          const upper = a + (b - a) * fx;
          const lower = c + (d - c) * fx;
          const value = upper + (lower - upper) * fy;
          if (value < MIN_VISIBLE_DBZ) continue;
          const index = value >= 5 * TOP_INDEX ? TOP_INDEX : floor(value / 5);
          scanlines[out + (px >> 1)]! |= px & 1 ? index : index << 4;
          drawn++;
        }
      }
      if (drawn === 0) return undefined;
      return encoder.encode(TILE_SIZE, TILE_SIZE, 4, scanlines);
    },
  };
}

/** Whether any grid value in the inclusive cell box reaches the visible threshold. */
function anyVisible(grid: FieldGrid, c0: number, c1: number, r0: number, r1: number): boolean {
  const { cols, dbz } = grid;
  for (let r = r0; r <= r1; r++) {
    for (let i = r * cols + c0, end = r * cols + c1; i <= end; i++) {
      if (dbz[i]! >= MIN_VISIBLE_DBZ) return true;
    }
  }
  return false;
}
