/**
 * The answer for a tile the archive does not hold (no echo there): one fully transparent
 * 256×256 PNG shared by every such tile. See docs/tiles.md "Tiles with no echo" for why this
 * beats 204 or 404 for the clients we serve (Leaflet, OpenLayers, MapLibre/Mapbox, ArcGIS).
 */
import { PNG } from 'pngjs';

/** Edge of the tiles the simulator renders and map clients request by default. */
const EDGE = 256;

function encodeTransparentPng(): Buffer {
  const png = new PNG({ width: EDGE, height: EDGE, colorType: 6 });
  png.data.fill(0);
  return PNG.sync.write(png, { colorType: 6, deflateLevel: 9 });
}

/** The encoded transparent tile, built once per process (identical bytes on every replica). */
export const EMPTY_TILE_PNG: Buffer = encodeTransparentPng();
