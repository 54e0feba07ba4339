/**
 * Radar frames on a MapLibre map: one raster source and layer per timestamp, all but one at
 * opacity 0. Hidden layers still load their tiles, which is how frames are preloaded so an
 * animation does not flash; MapLibre skips drawing them. A bounded number of frames stays on
 * the map (least recently used go first) so a long loop cannot exhaust memory or the quota.
 */
import { LRUCache } from 'lru-cache';
import { Protocol } from 'pmtiles';
import type { PaletteRewrite } from '../palette/scheme-rewrite';
import {
  createFrameRegistry,
  guardedProtocolHandler,
  PMTILES_SCHEME,
  type ProtocolHandler,
} from './frame-registry';
import type { RadarClient } from './radar-client';

/** The MapLibre `Map` methods used; a real `maplibregl.Map` satisfies it. */
export interface RadarMapLike {
  addSource(id: string, source: { type: 'raster'; url: string; tileSize: number }): unknown;
  removeSource(id: string): unknown;
  getSource(id: string): unknown;
  addLayer(
    layer: {
      id: string;
      type: 'raster';
      source: string;
      paint: {
        'raster-opacity': number;
        'raster-fade-duration': number;
        'raster-resampling': 'linear' | 'nearest';
      };
    },
    beforeId?: string,
  ): unknown;
  removeLayer(id: string): unknown;
  getLayer(id: string): unknown;
  setPaintProperty(layerId: string, name: string, value: unknown): unknown;
  isSourceLoaded(id: string): boolean;
}

/** The `maplibre-gl` module functions used (`import maplibregl from 'maplibre-gl'`). */
export interface MapLibreProtocols {
  addProtocol(name: string, handler: ProtocolHandler): void;
  removeProtocol(name: string): void;
}

/** Options of {@link createRadarFrames}. */
export interface RadarFramesOptions {
  readonly map: RadarMapLike;
  readonly client: RadarClient;
  /**
   * The `maplibre-gl` module: the `pmtiles` protocol is registered on it with a guarded handler.
   * Omit it when passing `protocol` that is already registered (one protocol per page).
   */
  readonly maplibre?: MapLibreProtocols;
  /** A shared pmtiles `Protocol`; by default a new one is created and registered. */
  readonly protocol?: Protocol;
  /** Layer id the radar layers are inserted below (e.g. state borders); default on top. */
  readonly beforeId?: string;
  /** Opacity of the shown frame (default 1, so the data's colours are exact). */
  readonly opacity?: number;
  /** Raster resampling (default `linear`). */
  readonly resampling?: 'linear' | 'nearest';
  /** Prefix of source and layer ids (default `radar`). */
  readonly idPrefix?: string;
  /** Frames kept on the map at once (default 40; at least 2). */
  readonly maxFrames?: number;
  /** Tile bodies kept for {@link RadarFrames.tile} (default 512). */
  readonly maxTiles?: number;
}

/** The radar frames of one map. */
export interface RadarFrames {
  /** Shows `timestamp` (adding it if needed) and hides the frame shown before. */
  show(timestamp: string): void;
  /** The shown timestamp, if any. */
  current(): string | undefined;
  /** Adds frames hidden, so their tiles load ahead of being shown. */
  preload(timestamps: Iterable<string>): void;
  /** True once every tile of the frame needed for the current view has loaded. */
  isLoaded(timestamp: string): boolean;
  /** Removes frames not in `timestamps` (e.g. the status list) and releases their readers. */
  retain(timestamps: Iterable<string>): void;
  /** Timestamps currently on the map. */
  frames(): string[];
  /** Layer id of a timestamp's raster layer. */
  layerId(timestamp: string): string;
  /**
   * Shows every tile from now on through `rewrite` (a palette swap, see `legend.ts`
   * `schemeRewrite`), or as stored when undefined. The frames on the map are reloaded: the
   * shown one at once, the others when next shown or preloaded (so a switch costs the tiles
   * of one view, not of every frame kept).
   */
  setRecolour(rewrite: PaletteRewrite | undefined): void;
  /**
   * One tile of an on-map frame as the map shows it (PNG bytes, recoloured), for drawing the
   * frame outside MapLibre (the viewer's interpolation). Tiles the map loaded are answered from
   * memory, costing no request; others are read through the frame's archive reader.
   * `undefined` when the frame is not on the map or the tile holds no echo.
   */
  tile(
    key: string,
    z: number,
    x: number,
    y: number,
    signal?: AbortSignal,
  ): Promise<Uint8Array | undefined>;
  /** Removes every frame and, if this helper registered it, the protocol. */
  remove(): void;
}

/**
 * `handler` with its tile bodies passed through the current recolouring, if any (what
 * {@link RadarFrames.setRecolour} installs); TileJSON and missing tiles pass unchanged.
 */
export function recolouringHandler(
  handler: ProtocolHandler,
  current: () => PaletteRewrite | undefined,
  onTile?: (url: string, data: Uint8Array) => void,
): ProtocolHandler {
  return (request, abortController) =>
    handler(request, abortController).then((response) => {
      const rewrite = current();
      const data = response.data;
      // TileJSON comes back as an object; a missing tile as an empty body.
      if (!(data instanceof Uint8Array) || data.length === 0) return response;
      const shown = rewrite === undefined ? data : rewrite(data);
      onTile?.(request.url, shown);
      return shown === data ? response : { ...response, data: shown };
    });
}

/** `pmtiles://{archive}/{z}/{x}/{y}` of a tile request URL (its extension dropped). */
const tileCacheKey = (url: string) => url.replace(/(\/\d+\/\d+\/\d+)\.[a-z]+$/, '$1');

/** Adds radar frames to `options.map`; call after the map's `load` event. */
export function createRadarFrames(options: RadarFramesOptions): RadarFrames {
  const { map, client } = options;
  // `metadata: true`: each frame's source carries its archive's attribution (the simulator's,
  // or NOAA's MRMS), which the map's attribution control shows while the frame is on screen.
  const protocol = options.protocol ?? new Protocol({ metadata: true });
  const ownsProtocol = options.protocol === undefined;
  let recolour: PaletteRewrite | undefined;
  /** Tile bodies the map was handed, by `pmtiles://` URL without extension. */
  const tiles = new LRUCache<string, Uint8Array>({ max: options.maxTiles ?? 512 });
  if (ownsProtocol) {
    if (!options.maplibre)
      throw new TypeError('createRadarFrames needs `maplibre` or a registered `protocol`');
    options.maplibre.addProtocol(
      PMTILES_SCHEME,
      recolouringHandler(
        guardedProtocolHandler(protocol),
        () => recolour,
        (url, data) => tiles.set(tileCacheKey(url), data),
      ),
    );
  }
  const registry = createFrameRegistry(client, protocol);
  const prefix = options.idPrefix ?? 'radar';
  const opacity = options.opacity ?? 1;
  const maxFrames = Math.max(2, options.maxFrames ?? 40);
  /** On-map timestamps, least recently used first. */
  const onMap = new Set<string>();
  let shown: string | undefined;

  const sourceId = (timestamp: string) => `${prefix}-${timestamp}`;
  const layerId = (timestamp: string) => `${prefix}-${timestamp}-layer`;

  /** Takes a frame off the map; `release` also drops its archive reader. */
  const drop = (timestamp: string, release = true) => {
    if (map.getLayer(layerId(timestamp))) map.removeLayer(layerId(timestamp));
    if (map.getSource(sourceId(timestamp))) map.removeSource(sourceId(timestamp));
    if (release) registry.release(timestamp);
    onMap.delete(timestamp);
    if (shown === timestamp) shown = undefined;
  };

  const ensure = (timestamp: string) => {
    if (onMap.has(timestamp)) {
      onMap.delete(timestamp); // re-insert: most recently used
      onMap.add(timestamp);
      return;
    }
    const url = registry.register(timestamp);
    map.addSource(sourceId(timestamp), { type: 'raster', url, tileSize: 256 });
    map.addLayer(
      {
        id: layerId(timestamp),
        type: 'raster',
        source: sourceId(timestamp),
        paint: {
          'raster-opacity': 0,
          'raster-fade-duration': 0,
          'raster-resampling': options.resampling ?? 'linear',
        },
      },
      options.beforeId,
    );
    onMap.add(timestamp);
    for (const old of onMap) {
      if (onMap.size <= maxFrames) break;
      if (old !== shown && old !== timestamp) drop(old);
    }
  };

  const show = (timestamp: string) => {
    ensure(timestamp);
    map.setPaintProperty(layerId(timestamp), 'raster-opacity', opacity);
    if (shown !== undefined && shown !== timestamp && onMap.has(shown)) {
      map.setPaintProperty(layerId(shown), 'raster-opacity', 0);
    }
    shown = timestamp;
  };

  return {
    show,
    current: () => shown,
    preload(timestamps) {
      for (const timestamp of timestamps) ensure(timestamp);
    },
    isLoaded: (timestamp) => onMap.has(timestamp) && map.isSourceLoaded(sourceId(timestamp)),
    retain(timestamps) {
      const keep = new Set(timestamps);
      for (const timestamp of [...onMap]) if (!keep.has(timestamp)) drop(timestamp);
      registry.retain(keep);
    },
    frames: () => [...onMap],
    layerId,
    setRecolour(rewrite) {
      if (rewrite === recolour) return;
      if (!ownsProtocol)
        throw new TypeError('setRecolour needs the protocol this helper registered');
      recolour = rewrite;
      tiles.clear();
      // Sources cache decoded tiles: new sources load them again through the new palette.
      // The archive readers stay, so no header or directory is read twice.
      const current = shown;
      for (const timestamp of [...onMap]) drop(timestamp, false);
      if (current !== undefined) show(current);
    },
    async tile(key, z, x, y, signal) {
      if (!onMap.has(key)) return undefined;
      const source = registry.register(key); // `pmtiles://{archive URL}`, already registered
      const url = `${source}/${z}/${x}/${y}`;
      const kept = tiles.get(url);
      if (kept !== undefined) return kept;
      const reader = protocol.tiles.get(source.slice(`${PMTILES_SCHEME}://`.length));
      const answer = await reader?.getZxy(z, x, y, signal);
      if (answer === undefined || answer.data.byteLength === 0) return undefined;
      const bytes = new Uint8Array(answer.data);
      const shown = recolour === undefined ? bytes : recolour(bytes);
      tiles.set(url, shown);
      return shown;
    },
    remove() {
      tiles.clear();
      for (const timestamp of [...onMap]) drop(timestamp);
      if (ownsProtocol) options.maplibre?.removeProtocol(PMTILES_SCHEME);
    },
  };
}
