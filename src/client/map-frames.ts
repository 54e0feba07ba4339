/**
 * Radar frames on a MapLibre map: one raster source and layer per timestamp, all but one at
 * opacity 0. Hidden layers still load their tiles, which is how frames are preloaded so an
 * animation does not flash; MapLibre skips drawing them. A bounded number of frames stays on
 * the map (least recently used go first) so a long loop cannot exhaust memory or the quota.
 */
import { Protocol } from 'pmtiles';
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
  /** Removes every frame and, if this helper registered it, the protocol. */
  remove(): void;
}

/** Adds radar frames to `options.map`; call after the map's `load` event. */
export function createRadarFrames(options: RadarFramesOptions): RadarFrames {
  const { map, client } = options;
  const protocol = options.protocol ?? new Protocol();
  const ownsProtocol = options.protocol === undefined;
  if (ownsProtocol) {
    if (!options.maplibre)
      throw new TypeError('createRadarFrames needs `maplibre` or a registered `protocol`');
    options.maplibre.addProtocol(PMTILES_SCHEME, guardedProtocolHandler(protocol));
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

  const drop = (timestamp: string) => {
    if (map.getLayer(layerId(timestamp))) map.removeLayer(layerId(timestamp));
    if (map.getSource(sourceId(timestamp))) map.removeSource(sourceId(timestamp));
    registry.release(timestamp);
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

  return {
    show(timestamp) {
      ensure(timestamp);
      map.setPaintProperty(layerId(timestamp), 'raster-opacity', opacity);
      if (shown !== undefined && shown !== timestamp && onMap.has(shown)) {
        map.setPaintProperty(layerId(shown), 'raster-opacity', 0);
      }
      shown = timestamp;
    },
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
    remove() {
      for (const timestamp of [...onMap]) drop(timestamp);
      if (ownsProtocol) options.maplibre?.removeProtocol(PMTILES_SCHEME);
    },
  };
}
