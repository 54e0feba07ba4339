/**
 * z/x/y tiles and TileJSON for map libraries that do not speak PMTiles (Leaflet, OpenLayers,
 * native SDKs): the URL template of a timestamp, the TileJSON document validated before use,
 * and the path of one tile. The service answers a tile with no echo with a transparent PNG,
 * so every tile URL inside the archive's bounds and zoom range yields an image.
 */
import { RadarResponseError } from './errors';
import { framePathStem } from './frame-paths';
import { parseForecastInfo, type RadarForecastInfo } from './forecast-info';
import { parseMotionField, type RadarMotionField } from './motion-field';

// Each path takes a frame key: an observed timestamp or a forecast frame key (frame-paths.ts).

/** Service path of a frame's TileJSON (`/tiles/{timestamp}.json`, `/forecasts/{base}/{lead}.json`). */
export function tileJsonPath(timestamp: string): string {
  return `${framePathStem(timestamp)}.json`;
}

/** Service path of one tile (no validation of the zoom range: the server answers 400). */
export function tilePath(timestamp: string, z: number, x: number, y: number): string {
  const stem = framePathStem(timestamp);
  for (const v of [z, x, y]) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`not a tile coordinate: ${v}`);
  }
  return `${stem}/${z}/${x}/${y}.png`;
}

/** Path template of a frame's tiles, `{z}`, `{x}`, `{y}` left for the map library. */
export function tileTemplatePath(timestamp: string): string {
  return `${framePathStem(timestamp)}/{z}/{x}/{y}.png`;
}

/** The TileJSON 3.0.0 fields the service fills (`GET /tiles/{timestamp}.json`). */
export interface RadarTileJson {
  readonly tilejson: string;
  readonly name?: string;
  readonly description?: string;
  readonly attribution?: string;
  readonly scheme?: 'xyz';
  readonly tiles: readonly string[];
  readonly minzoom: number;
  readonly maxzoom: number;
  /** [west, south, east, north] in degrees. */
  readonly bounds: readonly [number, number, number, number];
  /** [longitude, latitude, zoom]. */
  readonly center?: readonly [number, number, number];
  /** A forecast frame's identity (base, lead, valid time, every lead, method); absent when observed. */
  readonly forecast?: RadarForecastInfo;
  /** The motion the forecast moved the echoes along, decoded; absent when observed. */
  readonly motion?: RadarMotionField;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Validates a parsed TileJSON body; throws {@link RadarResponseError} on any violation. */
export function parseTileJson(body: unknown): RadarTileJson {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RadarResponseError('TileJSON is not a JSON object');
  const doc = body as Record<string, unknown>;
  if (typeof doc.tilejson !== 'string' || !/^[0-9]+\.[0-9]+\.[0-9]+$/.test(doc.tilejson))
    throw new RadarResponseError('TileJSON has no tilejson version');
  if (
    !Array.isArray(doc.tiles) ||
    doc.tiles.length === 0 ||
    !doc.tiles.every((t) => typeof t === 'string')
  )
    throw new RadarResponseError('TileJSON.tiles is not a non-empty array of URLs');
  if (!isNumber(doc.minzoom) || !isNumber(doc.maxzoom) || doc.minzoom > doc.maxzoom)
    throw new RadarResponseError('TileJSON minzoom/maxzoom are not a zoom range');
  if (!Array.isArray(doc.bounds) || doc.bounds.length !== 4 || !doc.bounds.every(isNumber))
    throw new RadarResponseError('TileJSON.bounds is not [west, south, east, north]');
  if (doc.center !== undefined && (!Array.isArray(doc.center) || !doc.center.every(isNumber)))
    throw new RadarResponseError('TileJSON.center is not [lon, lat, zoom]');
  const tileJson = doc as unknown as RadarTileJson;
  if (doc.forecast === undefined && doc.motion === undefined) return tileJson;
  return {
    ...tileJson,
    ...(doc.forecast !== undefined ? { forecast: parseForecastInfo(doc.forecast) } : {}),
    ...(doc.motion !== undefined ? { motion: parseMotionField(doc.motion) } : {}),
  };
}
