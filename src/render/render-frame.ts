/**
 * A whole radar frame: timestamp in, complete PMTiles archive out. This is the unit of work
 * the render pool runs off the main thread and the simulator publishes.
 */
import { parseTimestamp } from '../domain/timestamps';
import { type TileInput, writePmtiles } from '../pmtiles/writer';
import { CONUS_BOUNDS, tileRanges } from './web-mercator';
import { checkSimSetting, SIM_LIMITS } from '../sim/limits';
import { createReflectivityField, DEFAULT_SEED } from '../sim/field';
import { createIndexedPngEncoder } from './indexed-png';
import { paletteRgba, REFLECTIVITY_PALETTE } from './palette';
import { createTileRenderer } from './render-tile';

/** Options of {@link createFrameRenderer}; plain data so they can cross to a worker thread. */
export interface FrameOptions {
  /** Highest zoom rendered (default 7); zooms 0..maxZoom are all present. */
  readonly maxZoom?: number;
  /** Weather seed (default {@link DEFAULT_SEED}). */
  readonly seed?: number;
  /** Field grid spacing in degrees (default 0.05). */
  readonly stepDeg?: number;
  /** zlib level of tile PNGs (default 6). */
  readonly pngLevel?: number;
}

/** Renders frames; keeps per-thread scratch state, so use one per thread. */
export interface FrameRenderer {
  /**
   * The archive of `timestamp` (12-digit UTC): png tiles of the CONUS field at that instant,
   * empty tiles omitted, metadata naming the timestamp, units and palette. Throws
   * `RangeError` for an invalid timestamp. Deterministic: same options and timestamp, same bytes.
   */
  render(timestamp: string): Buffer;
}

/** Name of the producer, recorded in every archive's metadata. */
export const GENERATOR = 'radar-tiles simulator 1';

/** Creates a frame renderer for `options`. */
export function createFrameRenderer(options: FrameOptions = {}): FrameRenderer {
  const maxZoom = checkSimSetting('maxZoom', options.maxZoom ?? SIM_LIMITS.maxZoom.default);
  const field = createReflectivityField({
    seed: options.seed ?? DEFAULT_SEED,
    stepDeg: options.stepDeg,
  });
  const tiles = createTileRenderer({ pngLevel: options.pngLevel });
  const ranges = tileRanges(CONUS_BOUNDS, maxZoom);
  const { west, south, east, north } = CONUS_BOUNDS;

  return {
    render(timestamp) {
      const epochMs = parseTimestamp(timestamp);
      if (epochMs === undefined)
        throw new RangeError(`invalid timestamp ${JSON.stringify(timestamp)}`);
      const grid = field.sample(epochMs);
      const out: TileInput[] = [];
      for (const range of ranges) {
        for (let y = range.minY; y <= range.maxY; y++) {
          for (let x = range.minX; x <= range.maxX; x++) {
            const data = tiles.render(grid, range.z, x, y);
            if (data) out.push({ z: range.z, x, y, data });
          }
        }
      }
      // An archive needs at least one tile: a clear sky is one transparent world tile.
      if (out.length === 0) out.push({ z: 0, x: 0, y: 0, data: transparentTile() });
      return writePmtiles(out, {
        tileType: 'png',
        minZoom: 0,
        maxZoom,
        bounds: [west, south, east, north],
        center: [-96, 38, Math.min(4, maxZoom)],
        metadata: {
          name: `Simulated radar ${timestamp}`,
          description:
            'Synthetic base reflectivity over the contiguous United States (simulated, not real weather).',
          attribution: 'Simulated radar data (radar-tiles simulator)',
          type: 'overlay',
          format: 'png',
          units: 'dBZ',
          palette: REFLECTIVITY_PALETTE.map((step) => ({ dbz: step.dbz, color: step.color })),
          timestamp,
          generator: GENERATOR,
          seed: field.seed,
        },
      });
    },
  };
}

function transparentTile(): Buffer {
  return createIndexedPngEncoder(paletteRgba()).encode(256, 256, 4, new Uint8Array(129 * 256));
}
