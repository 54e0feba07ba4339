/**
 * The renderer's archive as an independent reader (the `pmtiles` package) sees it: header
 * (zoom range, bounds, centre), metadata (product, valid time, units, palette, coverage apart
 * from echo) and which tiles exist; and the grids it refuses.
 */
import { PMTiles, TileType } from 'pmtiles';
import { PNG } from 'pngjs';
import {
  NO_COVERAGE_MARKER,
  NO_ECHO_MARKER,
  type ReflectivityGrid,
} from '../../../src/domain/reflectivity-grid';
import { RENDERER } from '../../../src/render/frame-metadata';
import { REFLECTIVITY_PALETTE } from '../../../src/palette/palette';
import { renderFrame } from '../../../src/render/render-frame';
import { latToTileY, lonToTileX, tileRange } from '../../../src/render/web-mercator';
import { createBufferSource } from '../../fixtures/buffer-source';

const { floor } = Math;

/**
 * 400 x 300 cells of 0.02 degree, cell (0,0) centred at -104.99, 44.99, so the outer edges are
 * -105..-97 and 39..45. Columns 0-95 have no coverage; columns 200-399 hold 30 dBZ in rows 0-99
 * (north of 43 N, east of -101); every other cell is covered without echo.
 */
function frameGrid(): ReflectivityGrid {
  const width = 400;
  const height = 300;
  const values = new Float32Array(width * height);
  for (let r = 0; r < height; r++)
    for (let c = 0; c < width; c++)
      values[r * width + c] =
        c < 96 ? NO_COVERAGE_MARKER : c >= 200 && r < 100 ? 30 : NO_ECHO_MARKER;
  return {
    width,
    height,
    west: -104.99,
    north: 44.99,
    dLon: 0.02,
    dLat: 0.02,
    values,
    noCoverage: NO_COVERAGE_MARKER,
    noEcho: NO_ECHO_MARKER,
    product: 'MRMS ReflectivityAtLowestAltitude 00.50',
    validTimeMs: Date.UTC(2023, 3, 6, 12, 0, 39),
  };
}

const bounds = { west: -105, south: 39, east: -97, north: 45 };

describe('frame renderer archive', () => {
  const grid = frameGrid();
  const bytes = renderFrame(grid, {
    maxZoom: 7,
    metadata: { attribution: 'NOAA MRMS', units: 'furlongs', generator: 'test' },
  });
  const reader = new PMTiles(createBufferSource(bytes));

  it('declares png tiles for zooms 0..maxZoom over the grid extent, centred on it', async () => {
    const header = await reader.getHeader();
    expect(header.specVersion).toBe(3);
    expect(header.tileType).toBe(TileType.Png);
    expect([header.minZoom, header.maxZoom]).toEqual([0, 7]);
    expect([header.minLon, header.minLat, header.maxLon, header.maxLat]).toEqual([
      bounds.west,
      bounds.south,
      bounds.east,
      bounds.north,
    ]);
    expect([header.centerLon, header.centerLat, header.centerZoom]).toEqual([-101, 42, 4]);
  });

  it('names product, valid time, units, palette and what is covered apart from what has echo', async () => {
    const metadata = (await reader.getMetadata()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      product: 'MRMS ReflectivityAtLowestAltitude 00.50',
      timestamp: '202304061200', // the valid time truncated to the minute
      validTime: '2023-04-06T12:00:39.000Z',
      units: 'dBZ', // the renderer's fields win over the source's
      format: 'png',
      renderer: RENDERER,
      attribution: 'NOAA MRMS', // the source's own fields are kept
      generator: 'test',
      grid: { width: 400, height: 300, west: -104.99, north: 44.99, dLon: 0.02, dLat: 0.02 },
      cells: { noCoverage: 96 * 300, noEcho: 104 * 300 + 200 * 200, echo: 200 * 100 },
      coveredBounds: [-103.08, 39, -97, 45], // to whole 16-cell blocks
    });
    expect(metadata.palette).toEqual(REFLECTIVITY_PALETTE);
    for (const key of ['name', 'description', 'transparent', 'resampling'])
      expect(typeof metadata[key]).toBe('string');
  });

  it('holds exactly the tiles with echo: the northern third east of -101', async () => {
    const header = await reader.getHeader();
    let held = 0;
    for (let z = 0; z <= 7; z++) {
      const range = tileRange(bounds, z);
      // Tiles whose area reaches the echo (-101..-97, 43..45) must exist, all others not.
      const echo = tileRange({ west: -101, south: 43, east: -97, north: 45 }, z);
      for (let y = range.minY; y <= range.maxY; y++) {
        for (let x = range.minX; x <= range.maxX; x++) {
          const tile = await reader.getZxy(z, x, y);
          const wanted = x >= echo.minX && x <= echo.maxX && y >= echo.minY && y <= echo.maxY;
          expect({ z, x, y, present: tile !== undefined }).toEqual({ z, x, y, present: wanted });
          if (tile) held++;
        }
      }
    }
    expect(header.numAddressedTiles).toBe(held);
    // Outside the grid entirely, nothing.
    expect(await reader.getZxy(7, floor(lonToTileX(-120, 7)), floor(latToTileY(42, 7)))).toBe(
      undefined,
    );
  });

  it('is deterministic', () => {
    const again = renderFrame(frameGrid(), {
      maxZoom: 7,
      metadata: { attribution: 'NOAA MRMS', units: 'furlongs', generator: 'test' },
    });
    expect(again.equals(bytes)).toBe(true);
  });

  it('still writes a valid archive without any echo: one transparent world tile', async () => {
    const clear = { ...grid, values: new Float32Array(grid.values.length).fill(NO_ECHO_MARKER) };
    const empty = new PMTiles(createBufferSource(renderFrame(clear, { maxZoom: 5 })));
    expect((await empty.getHeader()).numAddressedTiles).toBe(1);
    const world = PNG.sync.read(Buffer.from((await empty.getZxy(0, 0, 0))!.data));
    for (let i = 3; i < world.data.length; i += 4)
      if (world.data[i] !== 0) throw new Error('opaque');
    expect(((await empty.getMetadata()) as { cells: unknown }).cells).toEqual({
      noCoverage: 0,
      noEcho: 400 * 300,
      echo: 0,
    });
  });

  it('records no covered area when nothing is covered (NaN is no coverage too)', async () => {
    const none = { ...grid, values: new Float32Array(grid.values.length).fill(NaN) };
    const metadata = (await new PMTiles(
      createBufferSource(renderFrame(none, { maxZoom: 2 })),
    ).getMetadata()) as Record<string, unknown>;
    expect(metadata.coveredBounds).toBeNull();
    expect(metadata.cells).toEqual({ noCoverage: 400 * 300, noEcho: 0, echo: 0 });
  });

  it.each<[string, Partial<ReflectivityGrid>, RegExp]>([
    ['too few values', { values: new Float32Array(10) }, /values must be a Float32Array of 120000/],
    ['zero width', { width: 0 }, /dimensions/],
    ['a hostile size', { width: 1e6, height: 1e6 }, /exceed the limit/],
    ['a negative step', { dLat: -0.02 }, /cell size/],
    ['an antimeridian crossing', { west: 175 }, /no antimeridian crossing/],
    ['latitudes past mercator', { north: 89 }, /web-mercator/],
    ['equal markers', { noCoverage: -99 }, /must differ/],
    ['a marker that is a reflectivity', { noEcho: 0 }, /noEcho must be below -50/],
    ['no product', { product: '' }, /product/],
    ['no valid time', { validTimeMs: NaN }, /validTimeMs/],
  ])('refuses a grid with %s, naming the problem', (_, change, message) => {
    expect(() => renderFrame({ ...grid, ...change })).toThrow(RangeError);
    expect(() => renderFrame({ ...grid, ...change })).toThrow(message);
  });

  it('refuses a zoom outside 0..12 and a bad PNG level', () => {
    expect(() => renderFrame(grid, { maxZoom: 13 })).toThrow(/maxZoom must be an integer in 0..12/);
    expect(() => renderFrame(grid, { maxZoom: 2.5 })).toThrow(RangeError);
    expect(() => renderFrame(grid, { pngLevel: 10 })).toThrow(/pngLevel/);
  });
});
