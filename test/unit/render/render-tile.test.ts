import { PNG } from 'pngjs';
import { parseTimestamp } from '../../../src/domain/timestamps';
import { CONUS_BOUNDS, tileRange, tileXToLon, tileYToLat } from '../../../src/render/web-mercator';
import {
  createReflectivityField,
  dbzAt,
  NO_ECHO_DBZ,
  type FieldGrid,
} from '../../../src/sim/field';
import { colorForDbz, hexToRgb, paletteRgba } from '../../../src/render/palette';
import { createTileRenderer } from '../../../src/render/render-tile';

const grid = createReflectivityField().sample(parseTimestamp('202611222200')!);
const renderer = createTileRenderer();

/** The z5 tile with the most echo, found by rendering all of them. */
function busiestTile(z: number): { x: number; y: number; png: Buffer } {
  const range = tileRange(CONUS_BOUNDS, z);
  let best: { x: number; y: number; png: Buffer } | undefined;
  for (let y = range.minY; y <= range.maxY; y++) {
    for (let x = range.minX; x <= range.maxX; x++) {
      const png = renderer.render(grid, z, x, y);
      if (png && (!best || png.length > best.png.length)) best = { x, y, png };
    }
  }
  if (!best) throw new Error('no tile with echo');
  return best;
}

describe('tile renderer', () => {
  const z = 5;
  const tile = busiestTile(z);
  const decoded = PNG.sync.read(tile.png);

  it('produces a 256x256 PNG', () => {
    expect(tile.png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([decoded.width, decoded.height]).toEqual([256, 256]);
  });

  it('uses palette colours only, and draws some echo', () => {
    const allowed = new Set(paletteRgba().map((c) => c.join(',')));
    const seen = new Set<string>();
    for (let i = 0; i < decoded.data.length; i += 4)
      seen.add([...decoded.data.subarray(i, i + 4)].join(','));
    for (const colour of seen) expect(allowed.has(colour)).toBe(true);
    expect(seen.has('0,0,0,0')).toBe(true);
    expect(seen.size).toBeGreaterThan(5);
  });

  it('colours each pixel by the interpolated dBZ at its centre', () => {
    let mismatches = 0;
    for (let py = 3; py < 256; py += 16) {
      for (let px = 5; px < 256; px += 16) {
        const lon = tileXToLon(tile.x + (px + 0.5) / 256, z);
        const lat = tileYToLat(tile.y + (py + 0.5) / 256, z);
        const expected = colorForDbz(dbzAt(grid, lon, lat));
        const o = (py * 256 + px) * 4;
        const got = [...decoded.data.subarray(o, o + 4)];
        const want = expected === undefined ? [0, 0, 0, 0] : [...hexToRgb(expected), 255];
        if (got.join() !== want.join()) mismatches++;
      }
    }
    expect(mismatches).toBe(0);
  });

  it('returns undefined for a tile with no echo and for tiles outside the grid', () => {
    const clear: FieldGrid = { ...grid, dbz: new Float32Array(grid.dbz.length).fill(NO_ECHO_DBZ) };
    expect(renderer.render(clear, z, tile.x, tile.y)).toBeUndefined();
    expect(renderer.render(grid, 5, 0, 0)).toBeUndefined(); // over Siberia
    expect(renderer.render(grid, 5, 16, 16)).toBeUndefined(); // south Atlantic
  });

  it('renders the same bytes every time', () => {
    expect(createTileRenderer().render(grid, z, tile.x, tile.y)!.equals(tile.png)).toBe(true);
  });
});
