/**
 * Cells exactly on the palette's step boundaries (5.0, 10.0, ... 75.0 dBZ; MRMS values come in
 * 0.5 dBZ steps, so they are common) through the whole renderer, both of its paths: the zooms
 * built by halving a whole-zoom image, and the zooms whose pixels are smaller than a cell, read
 * straight from the class grid. Every pixel of every tile at every zoom must show the index
 * the palette gives its cells (`paletteIndex`, whose own boundaries palette.test.ts checks), so
 * 5.0 dBZ is the lowest colour on the map as in the legend, never transparent.
 */
import { PMTiles } from 'pmtiles';
import {
  gridExtent,
  NO_ECHO_MARKER,
  type ReflectivityGrid,
} from '../../../src/domain/reflectivity-grid';
import { columnFootprints, rowFootprints } from '../../../src/render/footprints';
import { paletteIndex, REFLECTIVITY_PALETTE } from '../../../src/palette/palette';
import { renderFrame } from '../../../src/render/render-frame';
import { tileRange } from '../../../src/render/web-mercator';
import { createBufferSource } from '../../fixtures/buffer-source';
import { decodedIndices, expectedTile, tilesAround } from '../../fixtures/tile-oracle';

const BOUNDARIES = REFLECTIVITY_PALETTE.map((step) => step.dbz);
const MAX_ZOOM = 6;
/** Cells per side of one patch, and the cells of no echo between patches. */
const PATCH = 10;
const GAP = 20;

/**
 * 0.1-degree cells (off round numbers, so no cell centre lies on a pixel edge): one 10 x 10
 * patch per boundary value, five patches a row, 20 cells of no echo around each, so a zoom-0
 * pixel (1.4 degrees) never reaches two patches and each value is the strongest somewhere at
 * every zoom. One cell of every patch holds the next patch's value, so the patches also hold
 * boundaries side by side at the zooms where a pixel shows a single cell.
 */
function boundaryGrid(): ReflectivityGrid {
  const width = 5 * (PATCH + GAP) + GAP;
  const height = 3 * (PATCH + GAP) + GAP;
  const values = new Float32Array(width * height).fill(NO_ECHO_MARKER);
  BOUNDARIES.forEach((dbz, k) => {
    const c0 = GAP + (k % 5) * (PATCH + GAP);
    const r0 = GAP + Math.floor(k / 5) * (PATCH + GAP);
    for (let r = r0; r < r0 + PATCH; r++)
      for (let c = c0; c < c0 + PATCH; c++) values[r * width + c] = dbz;
    if (k > 0) values[r0 * width + c0] = BOUNDARIES[k - 1]!;
  });
  return {
    width,
    height,
    west: -110.00037,
    north: 45.00041,
    dLon: 0.1,
    dLat: 0.1,
    values,
    noCoverage: -999,
    noEcho: NO_ECHO_MARKER,
    product: 'step boundaries',
    validTimeMs: Date.UTC(2026, 4, 1, 12, 0, 0),
  };
}

describe('cells exactly on the step boundaries', () => {
  const grid = boundaryGrid();
  const reader = new PMTiles(createBufferSource(renderFrame(grid, { maxZoom: MAX_ZOOM })));

  it('are exactly the boundary values, each its own palette index (1 for 5.0 dBZ)', () => {
    const seen = new Set(grid.values.filter((v) => v !== NO_ECHO_MARKER));
    expect([...seen].sort((a, b) => a - b)).toEqual(BOUNDARIES);
    expect(BOUNDARIES.map(paletteIndex)).toEqual(BOUNDARIES.map((_, k) => k + 1));
  });

  it('reach both render paths: halved images at low zooms, the class grid from zoom 4', () => {
    const extent = gridExtent(grid);
    const nested = Array.from({ length: MAX_ZOOM + 1 }, (_, z) => {
      const r = tileRange(extent, z);
      const columns = columnFootprints(grid, z, r.minX * 256, (r.maxX - r.minX + 1) * 256);
      const rows = rowFootprints(grid, z, r.minY * 256, (r.maxY - r.minY + 1) * 256);
      return columns.nested && rows.nested;
    });
    expect(nested).toEqual([true, true, true, true, false, false, false]);
  });

  it.each(Array.from({ length: MAX_ZOOM + 1 }, (_, z) => z))(
    'zoom %i: every pixel shows its palette index, 5.0 dBZ included',
    async (z) => {
      const shown = new Set<number>();
      for (const [x, y] of tilesAround(grid, z)) {
        const expected = expectedTile(grid, z, x, y);
        const tile = await reader.getZxy(z, x, y);
        if (!tile) {
          expect({ z, x, y, echo: expected.some((v) => v > 0) }).toEqual({ z, x, y, echo: false });
          continue;
        }
        const got = decodedIndices(Buffer.from(tile.data));
        let mismatches = 0;
        for (let p = 0; p < expected.length; p++) {
          if (got[p] !== expected[p]) mismatches++;
          shown.add(got[p]!);
        }
        expect({ z, x, y, mismatches }).toEqual({ z, x, y, mismatches: 0 });
      }
      // Every colour step, the lowest (5.0 dBZ) included, is on the map at this zoom.
      expect([...shown].sort((a, b) => a - b)).toEqual([0, ...BOUNDARIES.map((_, k) => k + 1)]);
    },
  );
});
