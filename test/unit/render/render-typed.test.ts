/**
 * Frames with a precipitation type: a synthetic pair of grids holding every flag code of NOAA's
 * table under every dBZ step, next to cells without echo and without coverage (the edges of
 * coverage), rendered and decoded pixel by pixel against expectations worked out here from
 * first principles: a pixel shows the strongest step of the cells whose centres it contains
 * (or the cell under its centre), in the colour of that cell's type: snow over flag 3, hail over
 * flag 7, rain elsewhere (every other code, flag 0 and flag -3 included). A typed frame of rain
 * alone is tile for tile the untyped frame, and a type grid of another shape is refused.
 */
import { PMTiles } from 'pmtiles';
import { PNG } from 'pngjs';
import { PRECIP_FLAG_CODES, type PrecipTypeGrid } from '../../../src/domain/precip-type-grid';
import {
  gridExtent,
  NO_COVERAGE_MARKER,
  NO_ECHO_MARKER,
  type ReflectivityGrid,
} from '../../../src/domain/reflectivity-grid';
import { findScheme, schemeRgba, storedPalette } from '../../../src/palette/colour-schemes';
import { createPaletteRewrite } from '../../../src/palette/scheme-rewrite';
import { paletteIndex } from '../../../src/palette/palette';
import { readArchiveMetadata } from '../../../src/pmtiles/archive-metadata';
import { renderFrame } from '../../../src/render/render-frame';
import { lonToTileX, latToTileY, tileXToLon, tileYToLat } from '../../../src/render/web-mercator';
import { createBufferSource } from '../../fixtures/buffer-source';

const { floor, round, max } = Math;
/**
 * Tiles are decoded in the grey-dbz scheme, whose colours are distinct for every type and step
 * (the NWS scheme draws hail in one colour), through the same rewrite the tile routes use.
 */
const RGBA = schemeRgba(findScheme('grey-dbz')!);
const toGrey = createPaletteRewrite(storedPalette(), RGBA);
/** Columns of blocks: the 15 dBZ steps, then covered without echo, then no coverage. */
const VALUE_BLOCKS = [...Array.from({ length: 15 }, (_, i) => 5 * (i + 1) + 2.5), -99, -999];
const BLOCK_W = 7;
const BLOCK_H = 9;

/** Every flag code (rows of blocks) under every value (columns of blocks). */
function pairedGrids(): { grid: ReflectivityGrid; types: PrecipTypeGrid } {
  const width = VALUE_BLOCKS.length * BLOCK_W;
  const height = PRECIP_FLAG_CODES.length * BLOCK_H + 4;
  const values = new Float32Array(width * height);
  const codes = new Float32Array(width * height);
  for (let r = 0; r < height; r++)
    for (let c = 0; c < width; c++) {
      const code = PRECIP_FLAG_CODES[floor(r / BLOCK_H)];
      values[r * width + c] =
        code === undefined ? NO_ECHO_MARKER : VALUE_BLOCKS[floor(c / BLOCK_W)]!;
      // A code NOAA may add one day in the last rows: drawn as rain.
      codes[r * width + c] = code ?? 42;
    }
  // The last rows: snow and hail cells with strong echo beside rain of the same step, one cell
  // each, so low zooms must pick the type of the strongest cell (ties: hail over snow over rain).
  const last = (height - 2) * width;
  values.fill(62, last, last + 6);
  codes.set([1, 3, 1, 7, 3, 1], last);
  values[last + 40] = 71;
  codes[last + 40] = 3;
  values[last + 41] = 66;
  codes[last + 41] = 7;
  const geometry = { width, height, west: -100.00037, north: 40.00041, dLon: 0.01, dLat: 0.0083 };
  return {
    grid: {
      ...geometry,
      values,
      noCoverage: NO_COVERAGE_MARKER,
      noEcho: NO_ECHO_MARKER,
      product: 'typed test pattern',
      validTimeMs: Date.UTC(2026, 1, 19, 4, 24),
    },
    types: { width, height, codes },
  };
}

/** The typed class of a cell (`step << 2 | type`, 0 without echo), from first principles. */
function cellClass(grid: ReflectivityGrid, types: PrecipTypeGrid, c: number, r: number): number {
  const v = grid.values[r * grid.width + c]!;
  if (v === grid.noCoverage || v === grid.noEcho) return 0;
  const step = paletteIndex(v);
  if (step === 0) return 0;
  const code = types.codes[r * grid.width + c];
  return (step << 2) | (code === 3 ? 1 : code === 7 ? 2 : 0);
}

function cellsIn(count: number, origin: number, spacing: number, a: number, b: number) {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const at = origin + i * spacing;
    if (at >= a && at < b) out.push(i);
  }
  return out;
}

/** Expected palette index of each pixel of tile z/x/y. */
function expectedTile(
  grid: ReflectivityGrid,
  types: PrecipTypeGrid,
  z: number,
  x: number,
  y: number,
) {
  const columns: number[][] = [];
  for (let i = 0; i < 256; i++) {
    const inside = cellsIn(
      grid.width,
      grid.west,
      grid.dLon,
      tileXToLon(x + i / 256, z),
      tileXToLon(x + (i + 1) / 256, z),
    );
    const c = round((tileXToLon(x + (i + 0.5) / 256, z) - grid.west) / grid.dLon);
    columns.push(inside.length > 0 ? inside : c >= 0 && c < grid.width ? [c] : []);
  }
  const rows: number[][] = [];
  for (let j = 0; j < 256; j++) {
    // Rows count southwards: a row is inside when its centre lies in (bottom, top].
    const top = tileYToLat(y + j / 256, z);
    const bottom = tileYToLat(y + (j + 1) / 256, z);
    const inside = cellsIn(grid.height, -grid.north, grid.dLat, -top, -bottom).filter(
      (r) => grid.north - r * grid.dLat > bottom,
    );
    const r = round((grid.north - tileYToLat(y + (j + 0.5) / 256, z)) / grid.dLat);
    rows.push(inside.length > 0 ? inside : r >= 0 && r < grid.height ? [r] : []);
  }
  const out = new Uint8Array(256 * 256);
  for (let j = 0; j < 256; j++)
    for (let i = 0; i < 256; i++) {
      let m = 0;
      for (const r of rows[j]!)
        for (const c of columns[i]!) m = max(m, cellClass(grid, types, c, r));
      out[j * 256 + i] = m === 0 ? 0 : 16 * (m & 3) + (m >> 2);
    }
  return out;
}

/** The palette index of every pixel, by its decoded RGBA (-1 for a colour of no entry). */
function decodedIndices(png: Buffer): Int16Array {
  const image = PNG.sync.read(Buffer.from(toGrey(png)));
  // The unused entries 16 and 32 are transparent black like entry 0: map colours to the first.
  const byColour = new Map<string, number>();
  RGBA.forEach((rgba, index) => {
    if (!byColour.has(rgba.join())) byColour.set(rgba.join(), index);
  });
  const out = new Int16Array(256 * 256);
  for (let p = 0; p < 256 * 256; p++)
    out[p] = byColour.get([...image.data.subarray(4 * p, 4 * p + 4)].join()) ?? -1;
  return out;
}

async function tilesOf(archive: Buffer, grid: ReflectivityGrid, z: number) {
  const reader = new PMTiles(createBufferSource(archive));
  const e = gridExtent(grid);
  const out: Array<{ x: number; y: number; png: Buffer | undefined }> = [];
  for (let x = floor(lonToTileX(e.west, z)); x <= floor(lonToTileX(e.east, z)); x++)
    for (let y = floor(latToTileY(e.north, z)); y <= floor(latToTileY(e.south, z)); y++) {
      const tile = await reader.getZxy(z, x, y);
      out.push({ x, y, png: tile ? Buffer.from(tile.data) : undefined });
    }
  return out;
}

describe('typed frames', () => {
  const { grid, types } = pairedGrids();
  const archive = renderFrame(grid, { maxZoom: 9 }, types);

  it.each([2, 5, 7, 8, 9])(
    'zoom %i: every pixel in the ramp of its type at its step (snow over 3, hail over 7)',
    async (z) => {
      const wrong: string[] = [];
      const seen = new Set<number>();
      for (const { x, y, png } of await tilesOf(archive, grid, z)) {
        const expected = expectedTile(grid, types, z, x, y);
        if (png === undefined) {
          expect(expected.every((v) => v === 0)).toBe(true);
          continue;
        }
        const got = decodedIndices(png);
        for (let p = 0; p < got.length; p++) {
          seen.add(expected[p]!);
          if (got[p] !== expected[p])
            wrong.push(`${z}/${x}/${y} pixel ${p}: ${got[p]} not ${expected[p]}`);
        }
      }
      expect(wrong.slice(0, 5)).toEqual([]);
      if (z >= 7) {
        // Every type at every step reached the tiles.
        for (const base of [0, 16, 32])
          for (let step = 1; step <= 15; step++)
            expect([z, base + step, seen.has(base + step)]).toEqual([z, base + step, true]);
      }
    },
  );

  it('says in its metadata that it is typed and how indices read', () => {
    expect(readArchiveMetadata(archive).precipitationType).toEqual({
      typed: true,
      indices: expect.stringContaining('16 t + step'),
    });
    expect(readArchiveMetadata(renderFrame(grid, { maxZoom: 3 })).precipitationType).toEqual({
      typed: false,
    });
  });

  it('a typed frame of rain alone is tile for tile the untyped frame (4-bit, 16 entries)', async () => {
    const rain: PrecipTypeGrid = { ...types, codes: new Float32Array(types.codes.length).fill(1) };
    const typed = new PMTiles(createBufferSource(renderFrame(grid, { maxZoom: 8 }, rain)));
    const plain = new PMTiles(createBufferSource(renderFrame(grid, { maxZoom: 8 })));
    for (let z = 0; z <= 8; z++)
      for (const { x, y, png } of await tilesOf(renderFrame(grid, { maxZoom: 8 }), grid, z)) {
        const a = await typed.getZxy(z, x, y);
        const b = await plain.getZxy(z, x, y);
        expect(a && Buffer.from(a.data).equals(Buffer.from(b!.data))).toBe(png ? true : undefined);
      }
  });

  it('refuses a type grid of another shape, naming both shapes', () => {
    const wide = {
      width: grid.width + 1,
      height: grid.height,
      codes: new Float32Array((grid.width + 1) * grid.height),
    };
    expect(() => renderFrame(grid, {}, wide)).toThrow(
      /type grid is 120 x 85, the reflectivity grid 119 x 85/,
    );
    expect(() => renderFrame(grid, {}, { ...types, codes: new Float32Array(3) })).toThrow(
      RangeError,
    );
  });
});
