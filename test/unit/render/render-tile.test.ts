/**
 * The tiles the renderer writes, decoded pixel by pixel and compared with the grid cells under
 * them, worked out here from first principles (cell centres, pixel edges) rather than from the
 * renderer's index maps: at high zoom a pixel shows the cell under its centre, at low zoom the
 * strongest echo of the cells whose centres it contains; tiles without echo are absent.
 */
import { PMTiles } from 'pmtiles';
import {
  NO_COVERAGE_MARKER,
  NO_ECHO_MARKER,
  type ReflectivityGrid,
} from '../../../src/domain/reflectivity-grid';
import { paletteIndex } from '../../../src/palette/palette';
import { renderFrame } from '../../../src/render/render-frame';
import { lonToTileX, latToTileY, tileXToLon, tileYToLat } from '../../../src/render/web-mercator';
import { createBufferSource } from '../../fixtures/buffer-source';
import { cellIndex, decodedIndices, expectedTile, tilesAround } from '../../fixtures/tile-oracle';

const { floor, round } = Math;

/**
 * A 600 x 500 grid of 0.01 x 0.0083 degree cells in the central US (off any round number, so
 * no cell centre falls exactly on a pixel edge), holding every pattern the renderer must keep
 * apart: a west-to-east gradient through every colour, a block without coverage (-999) and one
 * of NaN, a band of covered cells without echo (-99) holding one strong cell, and noise.
 */
function patternGrid(): ReflectivityGrid {
  const width = 600;
  const height = 500;
  const values = new Float32Array(width * height);
  let seed = 12345;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      let v: number;
      if (r < 150)
        v = -12 + (92 * c) / width; // gradient: below 5 dBZ up to 80
      else if (r < 250 && c < 200) v = NO_COVERAGE_MARKER;
      else if (r < 250 && c < 260) v = NaN;
      else if (r < 250) v = NO_ECHO_MARKER;
      else if (r < 330)
        v = random() < 0.5 ? NO_ECHO_MARKER : -20 + 100 * random(); // noise
      else v = NO_ECHO_MARKER;
      values[r * width + c] = v;
    }
  }
  values[200 * width + 400] = 62; // one strong cell in the no-echo band
  return {
    width,
    height,
    west: -100.00037,
    north: 40.00041,
    dLon: 0.01,
    dLat: 0.0083,
    values,
    noCoverage: NO_COVERAGE_MARKER,
    noEcho: NO_ECHO_MARKER,
    product: 'test pattern',
    validTimeMs: Date.UTC(2026, 4, 1, 12, 0, 0),
  };
}

describe('rendered tiles match the grid cells under them', () => {
  const grid = patternGrid();
  const maxZoom = 9;
  const reader = new PMTiles(createBufferSource(renderFrame(grid, { maxZoom })));

  it.each([0, 3, 4, 5, 6, 7, 8])(
    'zoom %i: each pixel shows the strongest cell of its footprint; tiles without echo are absent',
    async (z) => {
      let present = 0;
      for (const [x, y] of tilesAround(grid, z)) {
        const expected = expectedTile(grid, z, x, y);
        const tile = await reader.getZxy(z, x, y);
        if (!tile) {
          expect({ z, x, y, echo: expected.some((v) => v > 0) }).toEqual({ z, x, y, echo: false });
          continue;
        }
        present++;
        const got = decodedIndices(Buffer.from(tile.data));
        let mismatches = 0;
        for (let p = 0; p < expected.length; p++) if (got[p] !== expected[p]) mismatches++;
        expect({ z, x, y, mismatches }).toEqual({ z, x, y, mismatches: 0 });
      }
      expect(present).toBeGreaterThan(0);
    },
  );

  it('zoom 9 (pixels smaller than cells): each pixel shows the cell under its centre', async () => {
    // The tiles over the strong cell and over the edge of the coverage gap.
    const spots: Array<[number, number]> = [
      [grid.west + 400 * grid.dLon, grid.north - 200 * grid.dLat],
      [grid.west + 200 * grid.dLon, grid.north - 150 * grid.dLat],
    ];
    for (const [lon, lat] of spots) {
      const x = floor(lonToTileX(lon, 9));
      const y = floor(latToTileY(lat, 9));
      const tile = await reader.getZxy(9, x, y);
      expect(tile).toBeDefined();
      const got = decodedIndices(Buffer.from(tile!.data));
      let mismatches = 0;
      for (let j = 0; j < 256; j++) {
        const r = round((grid.north - tileYToLat(y + (j + 0.5) / 256, 9)) / grid.dLat);
        for (let i = 0; i < 256; i++) {
          const c = round((tileXToLon(x + (i + 0.5) / 256, 9) - grid.west) / grid.dLon);
          const inside = r >= 0 && r < grid.height && c >= 0 && c < grid.width;
          if (got[j * 256 + i] !== (inside ? cellIndex(grid, c, r) : 0)) mismatches++;
        }
      }
      expect(mismatches).toBe(0);
    }
  });
});

describe('a single strong cell', () => {
  const base = patternGrid();
  const values = new Float32Array(base.values.length).fill(NO_ECHO_MARKER);
  values[200 * base.width + 400] = 62;
  const grid: ReflectivityGrid = { ...base, values };
  const reader = new PMTiles(createBufferSource(renderFrame(grid, { maxZoom: 9 })));

  it('stays visible at every zoom, in its own colour, in the pixel that holds it', async () => {
    const lon = grid.west + 400 * grid.dLon;
    const lat = grid.north - 200 * grid.dLat;
    const strong = paletteIndex(62);
    for (let z = 0; z <= 9; z++) {
      const fx = lonToTileX(lon, z);
      const fy = latToTileY(lat, z);
      const tile = await reader.getZxy(z, floor(fx), floor(fy));
      expect(tile).toBeDefined();
      const got = decodedIndices(Buffer.from(tile!.data));
      const i = floor((fx - floor(fx)) * 256);
      const j = floor((fy - floor(fy)) * 256);
      const coloured = got.filter((v) => v !== 0).length;
      expect({ z, index: got[j * 256 + i] }).toEqual({ z, index: strong });
      // Up to z6 a pixel is larger than a cell: the cell is exactly one pixel.
      if (z <= 6) expect({ z, coloured }).toEqual({ z, coloured: 1 });
    }
    expect((await reader.getHeader()).numAddressedTiles).toBe(10); // one tile per zoom
  });
});
