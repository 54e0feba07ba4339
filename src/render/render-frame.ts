/**
 * The one renderer: any reflectivity grid in, a complete PMTiles archive out (web-mercator
 * 256 px palette PNG tiles (4-bit; 8-bit where a typed frame has snow or hail) for zooms 0..maxZoom, tiles without echo omitted, metadata
 * naming the source product, valid time, units, palette, and what is covered apart from what
 * has no echo).
 * Every source (the simulator, MRMS) publishes through this, in-process or in the render pool.
 */
import { type PrecipTypeGrid, typeGridProblem } from '../domain/precip-type-grid';
import { gridExtent, gridProblem, type ReflectivityGrid } from '../domain/reflectivity-grid';
import { type TileInput, writePmtiles } from '../pmtiles/writer';
import { type AxisFootprints, columnFootprints, rowFootprints } from './footprints';
import { classifyGrid } from './grid-classes';
import { type ForecastFacts, frameMetadata } from './frame-metadata';
import { createTileWriter } from './render-tile';
import { TILE_SIZE, tileRanges } from './web-mercator';
import { halveImage, reduceGrid, type ZoomImage } from './zoom-image';

/** Deepest zoom rendered by default: a pixel is about 1 km, as fine as MRMS's 0.01 degree. */
const DEFAULT_MAX_ZOOM = 7;
/** Deepest zoom the renderer accepts. */
const RENDER_MAX_ZOOM = 12;

/** Options of {@link renderFrame}; plain data, so they can cross to a worker thread. */
export interface FrameRenderOptions {
  /** Highest zoom rendered, 0..{@link RENDER_MAX_ZOOM} (default {@link DEFAULT_MAX_ZOOM}). */
  readonly maxZoom?: number;
  /** zlib level of tile PNGs (default 6). */
  readonly pngLevel?: number;
  /** Header centre: lon, lat, zoom (default: the grid's centre at zoom min(4, maxZoom)). */
  readonly center?: readonly [number, number, number];
  /**
   * Source-specific metadata (e.g. name, description, attribution, generator, a seed). The
   * renderer's own fields (format, product, timestamp, validTime, units, palette, transparent,
   * grid, cells, coveredBounds, resampling, renderer) always win over fields of the same name.
   */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * Set for a forecast frame (the grid valid at base + lead): the metadata says `kind:
   * "forecast"` with the base, lead, valid time, leads, method and motion; otherwise
   * `kind: "observed"`. The same palette and tiles either way.
   */
  readonly forecast?: ForecastFacts;
}

/** `maxZoom` when it is an integer in 0..{@link RENDER_MAX_ZOOM}; RangeError otherwise. */
function checkZoom(maxZoom: number): number {
  if (!Number.isInteger(maxZoom) || maxZoom < 0 || maxZoom > RENDER_MAX_ZOOM)
    throw new RangeError(`maxZoom must be an integer in 0..${RENDER_MAX_ZOOM}, got ${maxZoom}`);
  return maxZoom;
}

/** Checks render options up front (a bad setting fails at start, not at the first frame). */
export function checkFrameRenderOptions(options: FrameRenderOptions): void {
  checkZoom(options.maxZoom ?? DEFAULT_MAX_ZOOM);
  const level = options.pngLevel ?? 6;
  if (!Number.isInteger(level) || level < 0 || level > 9)
    throw new RangeError(`pngLevel must be an integer in 0..9, got ${level}`);
}

/**
 * The archive of `grid`. Pure and deterministic: the same grid and options give the same bytes.
 * Throws `RangeError` naming the problem for a grid {@link gridProblem} refuses or bad options.
 * A grid without any echo still gives a valid archive: its single z0 tile, transparent.
 * With `types` (precipitation-type codes on the same raster; `RangeError` when
 * {@link typeGridProblem} refuses them) the pixels with echo also carry their type: tiles
 * holding snow or hail are 8-bit in the typed palette, and the metadata says the frame is typed.
 */
export function renderFrame(
  grid: ReflectivityGrid,
  options: FrameRenderOptions = {},
  types?: PrecipTypeGrid,
): Buffer {
  checkFrameRenderOptions(options);
  const problem = gridProblem(grid);
  if (problem !== undefined) throw new RangeError(`bad reflectivity grid: ${problem}`);
  const typeProblem = types === undefined ? undefined : typeGridProblem(grid, types);
  if (typeProblem !== undefined) throw new RangeError(`bad type grid: ${typeProblem}`);
  const maxZoom = options.maxZoom ?? DEFAULT_MAX_ZOOM;
  const extent = gridExtent(grid);
  const ranges = tileRanges(extent, maxZoom);
  const columns: AxisFootprints[] = [];
  const rows: AxisFootprints[] = [];
  for (const r of ranges) {
    columns.push(
      columnFootprints(grid, r.z, r.minX * TILE_SIZE, (r.maxX - r.minX + 1) * TILE_SIZE),
    );
    rows.push(rowFootprints(grid, r.z, r.minY * TILE_SIZE, (r.maxY - r.minY + 1) * TILE_SIZE));
  }
  // Deepest zoom from which every lower zoom can be built by halving.
  let pyramidTop = -1;
  while (pyramidTop < maxZoom && columns[pyramidTop + 1]!.nested && rows[pyramidTop + 1]!.nested)
    pyramidTop++;

  const classes = classifyGrid(grid, types);
  const images: ZoomImage[] = [];
  if (pyramidTop >= 0) {
    images[pyramidTop] = reduceGrid(classes, pyramidTop, columns[pyramidTop]!, rows[pyramidTop]!);
    for (let z = pyramidTop - 1; z >= 0; z--) {
      const c = columns[z]!;
      const r = rows[z]!;
      images[z] = halveImage(images[z + 1]!, c.first, r.first, c.count, r.count);
    }
  }

  const writer = createTileWriter({ pngLevel: options.pngLevel, paletteOf: classes.paletteOf });
  const tiles: TileInput[] = [];
  for (const range of ranges) {
    const { z } = range;
    for (let y = range.minY; y <= range.maxY; y++) {
      for (let x = range.minX; x <= range.maxX; x++) {
        const data =
          z <= pyramidTop
            ? writer.fromImage(images[z]!, x, y)
            : writer.fromGrid(classes, columns[z]!, rows[z]!, x, y);
        if (data) tiles.push({ z, x, y, data });
      }
    }
  }
  // An archive needs at least one tile: a sky without echo is the world tile, transparent.
  if (tiles.length === 0) {
    const data =
      pyramidTop >= 0
        ? writer.fromImage(images[0]!, 0, 0, true)
        : writer.fromGrid(classes, columns[0]!, rows[0]!, 0, 0, true);
    tiles.push({ z: 0, x: 0, y: 0, data: data! });
  }

  const center = options.center ?? [
    (extent.west + extent.east) / 2,
    (extent.south + extent.north) / 2,
    Math.min(4, maxZoom),
  ];
  return writePmtiles(tiles, {
    tileType: 'png',
    minZoom: 0,
    maxZoom,
    bounds: [extent.west, extent.south, extent.east, extent.north],
    center: [center[0], center[1], center[2]],
    metadata: frameMetadata(grid, classes, options.metadata, options.forecast),
  });
}
