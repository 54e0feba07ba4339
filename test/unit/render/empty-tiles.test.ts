/**
 * Tiles without echo are left out of the archive (readers show nothing for a missing tile, and
 * the API answers it with the shared empty tile), including where the renderer's coarse map of
 * echo says a 16 x 16-cell block holds echo but the tile's own pixels show none: echo in one
 * corner cell of a block, with the rest of the block in tiles of their own. Read back through
 * the independent `pmtiles` reader: no stored tile holds only index 0, and the archive holds
 * exactly the tiles whose pixels show echo.
 */
import { PMTiles } from 'pmtiles';
import {
  gridExtent,
  NO_ECHO_MARKER,
  type ReflectivityGrid,
} from '../../../src/domain/reflectivity-grid';
import { BLOCK_CELLS } from '../../../src/render/grid-classes';
import { renderFrame } from '../../../src/render/render-frame';
import { lonToTileX, latToTileY, tileRange } from '../../../src/render/web-mercator';
import { createBufferSource } from '../../fixtures/buffer-source';
import { decodedIndices, expectedTile } from '../../fixtures/tile-oracle';

const MAX_ZOOM = 12;

/** Echo cells (column, row): each in one corner of its block, every corner used. */
const ECHO: ReadonlyArray<readonly [number, number]> = [
  [2 * BLOCK_CELLS, 2 * BLOCK_CELLS], // top-left corner
  [5 * BLOCK_CELLS - 1, 3 * BLOCK_CELLS], // top-right
  [3 * BLOCK_CELLS, 7 * BLOCK_CELLS - 1], // bottom-left
  [8 * BLOCK_CELLS - 1, 8 * BLOCK_CELLS - 1], // bottom-right
  [6 * BLOCK_CELLS, 5 * BLOCK_CELLS], // top-left
];

/** 160 x 160 cells of 0.01 degree (MRMS's), covered and without echo but in the cells above. */
function cornerGrid(): ReflectivityGrid {
  const width = 10 * BLOCK_CELLS;
  const height = 10 * BLOCK_CELLS;
  const values = new Float32Array(width * height).fill(NO_ECHO_MARKER);
  for (const [c, r] of ECHO) values[r * width + c] = 42;
  return {
    width,
    height,
    west: -97.00037,
    north: 36.00041,
    dLon: 0.01,
    dLat: 0.01,
    values,
    noCoverage: -999,
    noEcho: NO_ECHO_MARKER,
    product: 'echo in block corners',
    validTimeMs: Date.UTC(2026, 4, 1, 12, 0, 0),
  };
}

/** The tiles of zoom `z` that the closed box (degrees) touches. */
function tilesTouching(z: number, west: number, south: number, east: number, north: number) {
  const out: string[] = [];
  for (let y = Math.floor(latToTileY(north, z)); y <= Math.floor(latToTileY(south, z)); y++)
    for (let x = Math.floor(lonToTileX(west, z)); x <= Math.floor(lonToTileX(east, z)); x++)
      out.push(`${x}/${y}`);
  return out;
}

describe('echo in one corner of a block', () => {
  const grid = cornerGrid();
  const reader = new PMTiles(createBufferSource(renderFrame(grid, { maxZoom: MAX_ZOOM })));
  /** Cell edges (degrees) of a cell box, inclusive of its cells. */
  const box = (c0: number, r0: number, c1: number, r1: number) => ({
    west: grid.west + (c0 - 0.5) * grid.dLon,
    east: grid.west + (c1 + 0.5) * grid.dLon,
    north: grid.north - (r0 - 0.5) * grid.dLat,
    south: grid.north - (r1 + 0.5) * grid.dLat,
  });
  /** Per zoom, the tiles whose pixels show echo (the oracle), and those of an echo block. */
  const expected = Array.from({ length: MAX_ZOOM + 1 }, (_, z) => {
    // A pixel shows the cells whose centres it holds, or the cell under its centre: only a
    // tile that touches an echo cell can show it.
    const candidates = new Set<string>();
    const blockTiles = new Set<string>();
    for (const [c, r] of ECHO) {
      const e = box(c, r, c, r);
      for (const t of tilesTouching(z, e.west, e.south, e.east, e.north)) candidates.add(t);
      const bc = Math.floor(c / BLOCK_CELLS) * BLOCK_CELLS;
      const br = Math.floor(r / BLOCK_CELLS) * BLOCK_CELLS;
      const b = box(bc, br, bc + BLOCK_CELLS - 1, br + BLOCK_CELLS - 1);
      const t = tileRange(b, z);
      for (let y = t.minY; y <= t.maxY; y++)
        for (let x = t.minX; x <= t.maxX; x++) blockTiles.add(`${x}/${y}`);
    }
    const withEcho = new Set(
      [...candidates].filter((t) => {
        const [x, y] = t.split('/').map(Number);
        return expectedTile(grid, z, x!, y!).some((v) => v > 0);
      }),
    );
    return { withEcho, blockTiles };
  });

  it('puts echo blocks across tile edges: tiles of an echo block without echo at zooms 9-12', () => {
    const emptyBlockTiles = expected.map(
      ({ withEcho, blockTiles }) => [...blockTiles].filter((t) => !withEcho.has(t)).length,
    );
    for (let z = 9; z <= MAX_ZOOM; z++)
      expect({ z, n: emptyBlockTiles[z]! > 0 }).toEqual({ z, n: true });
  });

  it('stores no tile that holds only index 0', async () => {
    const extent = gridExtent(grid);
    for (let z = 0; z <= MAX_ZOOM; z++) {
      const range = tileRange(extent, z);
      for (let y = range.minY; y <= range.maxY; y++) {
        for (let x = range.minX; x <= range.maxX; x++) {
          const tile = await reader.getZxy(z, x, y);
          if (!tile) continue;
          const echo = decodedIndices(Buffer.from(tile.data)).some((v) => v > 0);
          expect({ z, x, y, echo }).toEqual({ z, x, y, echo: true });
        }
      }
    }
  });

  it('stores exactly the tiles whose pixels show echo', async () => {
    const extent = gridExtent(grid);
    let total = 0;
    for (let z = 0; z <= MAX_ZOOM; z++) {
      const range = tileRange(extent, z);
      const stored: string[] = [];
      for (let y = range.minY; y <= range.maxY; y++)
        for (let x = range.minX; x <= range.maxX; x++)
          if (await reader.getZxy(z, x, y)) stored.push(`${x}/${y}`);
      expect({ z, stored: stored.sort() }).toEqual({
        z,
        stored: [...expected[z]!.withEcho].sort(),
      });
      total += stored.length;
    }
    expect((await reader.getHeader()).numAddressedTiles).toBe(total);
  });
});
