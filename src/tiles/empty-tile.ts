/**
 * The answer for a tile the archive does not hold (no echo there): one fully transparent
 * 256×256 PNG shared by every such tile. See docs/tiles.md "Tiles with no echo" for why this
 * beats 204 or 404 for the clients we serve (Leaflet, OpenLayers, MapLibre/Mapbox, ArcGIS).
 * Encoded with the renderer's palette encoder (one transparent entry, 1 bit per pixel), so
 * serving it needs no image library.
 */
import { createIndexedPngEncoder } from '../palette/indexed-png';

/** Edge of the tiles the renderer writes and map clients request by default. */
const EDGE = 256;

function encodeTransparentPng(): Buffer {
  const rowBytes = 1 + EDGE / 8; // filter byte + 1-bit indices, all 0 (the transparent entry)
  const encoder = createIndexedPngEncoder([[0, 0, 0, 0]], { level: 9 });
  return encoder.encode(EDGE, EDGE, 1, new Uint8Array(rowBytes * EDGE));
}

/** The encoded transparent tile, built once per process (identical bytes on every replica). */
export const EMPTY_TILE_PNG: Buffer = encodeTransparentPng();
