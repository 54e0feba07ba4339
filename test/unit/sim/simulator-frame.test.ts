import { PMTiles, TileType } from 'pmtiles';
import { PNG } from 'pngjs';
import { REFLECTIVITY_PALETTE } from '../../../src/palette/palette';
import { RENDERER } from '../../../src/render/frame-metadata';
import { tileRanges } from '../../../src/render/web-mercator';
import { CONUS_BOUNDS } from '../../../src/sim/field';
import { SIMULATOR_PRODUCT } from '../../../src/sim/simulated-grid';
import { createSimulatorFrameRenderer, GENERATOR } from '../../../src/sim/simulator-frame';
import { createBufferSource } from '../../fixtures/buffer-source';

describe('simulator frame renderer', () => {
  const maxZoom = 5;
  const renderer = createSimulatorFrameRenderer({ maxZoom });
  const archive = renderer.render('202611221400');
  const reader = new PMTiles(createBufferSource(archive));

  it('writes an archive the pmtiles reader opens, with CONUS bounds and zooms 0..maxZoom', async () => {
    const header = await reader.getHeader();
    expect(header.specVersion).toBe(3);
    expect(header.tileType).toBe(TileType.Png);
    expect([header.minZoom, header.maxZoom]).toEqual([0, maxZoom]);
    expect([header.minLon, header.minLat, header.maxLon, header.maxLat]).toEqual([
      -125, 24, -66, 50,
    ]);
    expect([header.centerLon, header.centerLat, header.centerZoom]).toEqual([-96, 38, 4]);
    expect(header.numAddressedTiles).toBeGreaterThan(10);
  });

  it('names the timestamp, units, palette, product and seed in its metadata', async () => {
    const metadata = (await reader.getMetadata()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      timestamp: '202611221400',
      validTime: '2026-11-22T14:00:00.000Z',
      units: 'dBZ',
      product: SIMULATOR_PRODUCT,
      generator: GENERATOR,
      renderer: RENDERER,
      seed: renderer.seed,
      name: 'Simulated radar 202611221400',
    });
    // The simulator has radar everywhere in its box: no cell without coverage.
    expect(metadata.cells).toMatchObject({ noCoverage: 0 });
    expect(metadata.coveredBounds).toEqual([-125, 24, -66, 50]);
    expect(metadata.palette).toEqual(REFLECTIVITY_PALETTE);
    for (const key of ['name', 'description', 'attribution'])
      expect(typeof metadata[key]).toBe('string');
  });

  it('holds decodable 256x256 PNG tiles, the world tile among them', async () => {
    const world = await reader.getZxy(0, 0, 0);
    expect(world).toBeDefined();
    expect(PNG.sync.read(Buffer.from(world!.data)).width).toBe(256);
    // Some z5 tile over CONUS has echo.
    const [range] = tileRanges(CONUS_BOUNDS, maxZoom).slice(-1);
    let found = 0;
    for (let y = range!.minY; y <= range!.maxY; y++) {
      for (let x = range!.minX; x <= range!.maxX; x++) {
        const tile = await reader.getZxy(maxZoom, x, y);
        if (tile) {
          expect(PNG.sync.read(Buffer.from(tile.data)).height).toBe(256);
          found++;
        }
      }
    }
    expect(found).toBeGreaterThan(0);
    expect(await reader.getZxy(maxZoom, 0, 0)).toBeUndefined(); // outside CONUS
  });

  it('is deterministic and differs between timestamps', () => {
    expect(createSimulatorFrameRenderer({ maxZoom }).render('202611221400').equals(archive)).toBe(
      true,
    );
    expect(renderer.render('202611221402').equals(archive)).toBe(false);
  });

  it('rejects an invalid timestamp or zoom', () => {
    expect(() => renderer.render('202613221400')).toThrow(RangeError);
    expect(() => renderer.render('2026')).toThrow(RangeError);
    expect(() => createSimulatorFrameRenderer({ maxZoom: 13 })).toThrow(RangeError);
  });

  it('still writes a valid archive when the sky is clear: one transparent world tile', async () => {
    // A 13-degree grid misses every echo of this frame (checked below), so no tile has echo.
    const bytes = createSimulatorFrameRenderer({ maxZoom: 3, stepDeg: 13 }).render('202611221400');
    const clear = new PMTiles(createBufferSource(bytes));
    expect((await clear.getHeader()).numAddressedTiles).toBe(1);
    const world = PNG.sync.read(Buffer.from((await clear.getZxy(0, 0, 0))!.data));
    let opaque = 0;
    for (let i = 3; i < world.data.length; i += 4) if (world.data[i] !== 0) opaque++;
    expect(opaque).toBe(0);
  });
});
