/**
 * A radar frame as one picture of the map's view, outside MapLibre: the tiles covering the view
 * at the zoom MapLibre loads them, drawn side by side into an RGBA image (for the interpolation).
 */
import type { Map as MapLibreMap } from 'maplibre-gl';
import type { RadarFrames } from '../src/client/map-frames';

/** Most tiles per frame drawn (a 1280 x 800 view of CONUS needs about 15 to 30). */
const MAX_TILES = 64;
/** Most pixels of the picture; larger views are drawn at half resolution. */
const MAX_PIXELS = 1_200_000;

/** The tiles of a view: zoom, world size in tiles, the tile range and the drawing scale. */
export interface MosaicLayout {
  readonly z: number;
  /** Tiles per world side, 2^z. */
  readonly n: number;
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
  /** Image pixels per tile pixel: 1, or 0.5 for a large view. */
  readonly scale: number;
}

const mercatorY = (lat: number) =>
  Math.log(Math.tan(Math.PI / 4 + (Math.min(85.05, Math.max(-85.05, lat)) * Math.PI) / 360));

/** The layout of the map's current view for the raster layer `layerId` (its source's max zoom). */
export function viewLayout(map: MapLibreMap, layerId: string): MosaicLayout {
  const layer = map.getLayer(layerId);
  const source = layer
    ? (map.getSource(layer.source) as { maxzoom?: number } | undefined)
    : undefined;
  // The tile zoom MapLibre loads for a raster source of 256 px tiles: its zoom counts 512 px
  // worlds, so one more, rounded (raster sources round).
  let z = Math.max(0, Math.min(source?.maxzoom ?? 7, Math.round(map.getZoom() + 1)));
  const bounds = map.getBounds();
  for (;;) {
    const n = 2 ** z;
    const clamp = (v: number) => Math.max(0, Math.min(n - 1, Math.floor(v)));
    const x0 = clamp(((bounds.getWest() + 180) / 360) * n);
    const x1 = clamp(((bounds.getEast() + 180) / 360) * n);
    const y0 = clamp(((1 - mercatorY(bounds.getNorth()) / Math.PI) / 2) * n);
    const y1 = clamp(((1 - mercatorY(bounds.getSouth()) / Math.PI) / 2) * n);
    const count = (x1 - x0 + 1) * (y1 - y0 + 1);
    if (count <= MAX_TILES || z === 0) {
      const scale = count * 256 * 256 > MAX_PIXELS ? 0.5 : 1;
      return { z, n, x0, x1, y0, y1, scale };
    }
    z--;
  }
}

/** One frame's tiles drawn into an RGBA image of `at` (nearest-neighbour, no new colours). */
export async function drawMosaic(
  frames: Pick<RadarFrames, 'tile'>,
  key: string,
  at: MosaicLayout,
): Promise<Uint8ClampedArray> {
  const side = 256 * at.scale;
  const mosaic = document.createElement('canvas');
  mosaic.width = (at.x1 - at.x0 + 1) * side;
  mosaic.height = (at.y1 - at.y0 + 1) * side;
  const ctx = mosaic.getContext('2d', { willReadFrequently: true })!;
  ctx.imageSmoothingEnabled = false;
  const jobs: Promise<void>[] = [];
  for (let y = at.y0; y <= at.y1; y++)
    for (let x = at.x0; x <= at.x1; x++)
      jobs.push(
        frames.tile(key, at.z, x, y).then(async (png) => {
          if (png === undefined) return;
          const bitmap = await createImageBitmap(
            new Blob([png as BlobPart], { type: 'image/png' }),
          );
          ctx.drawImage(bitmap, (x - at.x0) * side, (y - at.y0) * side, side, side);
          bitmap.close();
        }),
      );
  await Promise.all(jobs);
  return ctx.getImageData(0, 0, mosaic.width, mosaic.height).data;
}
