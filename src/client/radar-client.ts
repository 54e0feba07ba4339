/**
 * `createRadarClient`: the entry point for map developers. It follows the API's client flow
 * (read `/status.json`, then archives by a listed timestamp) and hides the details each map
 * would otherwise rediscover: both auth headers on every range request, 429 handling, and
 * validation of the status record.
 */
import { PMTiles } from 'pmtiles';
import { archivePath, createArchiveSource } from './archive-source';
import { RadarResponseError } from './errors';
import { LEGEND_PATH, parseLegend, type RadarLegend } from './legend';
import type { RateLimitState } from './rate-limit';
import { parseRadarStatus, type RadarStatus } from './status';
import { radarTimeline, type RadarTimelineFrame } from './timeline';
import {
  parseTileJson,
  tileJsonPath,
  tilePath,
  tileTemplatePath,
  type RadarTileJson,
} from './tiles';
import { createRadarTransport, type RadarTransport, type RadarTransportOptions } from './transport';
import type { RadarApiError } from './errors';

/** Options of {@link createRadarClient}: those of the transport. */
export type RadarClientOptions = RadarTransportOptions;

/** A client for one service and one API key + app id. */
export interface RadarClient {
  /** Base URL without a trailing slash. */
  readonly baseUrl: string;
  /** The validated status record; rejects with `RadarApiError` / `RadarResponseError`. */
  status(signal?: AbortSignal): Promise<RadarStatus>;
  /**
   * The colour schemes and their legend (`/legend.json`), validated. It changes only with a
   * release of the service, so one read per page is enough.
   */
  legend(signal?: AbortSignal): Promise<RadarLegend>;
  /**
   * The status's observed and forecast frames as one timeline, oldest first, each with its kind
   * and URLs (see `timeline.ts`). Every method below that takes a `timestamp` also takes a
   * timeline frame's `key`, so forecast frames are read exactly like observed ones.
   */
  timeline(status: Pick<RadarStatus, 'timestamps' | 'forecasts'>): RadarTimelineFrame[];
  /** Absolute URL of a timestamp's archive (also its pmtiles source key). */
  archiveUrl(timestamp: string): string;
  /**
   * Absolute z/x/y URL template of `timestamp`'s tiles
   * (`https://…/tiles/{timestamp}/{z}/{x}/{y}.png`) for Leaflet, OpenLayers or native SDKs.
   * Those libraries load tiles without the two auth headers: use {@link RadarClient.tile} in a
   * custom tile loader (docs/examples.md), or a server-side proxy.
   */
  tileUrl(timestamp: string): string;
  /** Absolute URL of `timestamp`'s TileJSON. */
  tileJsonUrl(timestamp: string): string;
  /**
   * `timestamp`'s TileJSON, fetched with the credentials and validated. A forecast frame's
   * carries `forecast` (base, lead, valid time, method) and `motion`, decoded.
   */
  tileJson(timestamp: string, signal?: AbortSignal): Promise<RadarTileJson>;
  /**
   * One tile as a PNG `Blob`, fetched with both credentials and the client's 429 handling
   * (a tile with no echo is a transparent PNG). For custom tile loaders.
   */
  tile(timestamp: string, z: number, x: number, y: number, signal?: AbortSignal): Promise<Blob>;
  /**
   * A new `PMTiles` reader of `timestamp`'s archive whose requests all go through this client.
   * Each call makes a new reader with its own header/directory cache; keep one per frame.
   */
  openArchive(timestamp: string): PMTiles;
  /** The latest rate-limit state seen, if any. */
  rateLimit(): RateLimitState | undefined;
  /** Subscribes to rate-limit changes (including the hold after a 429); returns unsubscribe. */
  onRateLimit(listener: (state: RateLimitState) => void): () => void;
  /** Subscribes to every request error (401, 403, 429 given up, 5xx...); returns unsubscribe. */
  onError(listener: (error: RadarApiError) => void): () => void;
}

/** Fetches a JSON document; a body that is not JSON is a response error naming `what`. */
async function getJson(
  http: RadarTransport,
  path: string,
  what: string,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const response = await http.get(path, { signal, headers: { Accept: 'application/json' } });
  try {
    return (await response.json()) as unknown;
  } catch {
    throw new RadarResponseError(`${what} is not valid JSON`);
  }
}

/** Creates a client; `transport` may be supplied to share one rate-limit state between clients. */
export function createRadarClient(
  options: RadarClientOptions,
  transport?: RadarTransport,
): RadarClient {
  const http = transport ?? createRadarTransport(options);
  return {
    baseUrl: http.baseUrl,
    async status(signal) {
      return parseRadarStatus(await getJson(http, '/status.json', 'status', signal));
    },
    async legend(signal) {
      return parseLegend(await getJson(http, LEGEND_PATH, 'legend', signal));
    },
    timeline: (status) => radarTimeline(status, http.url),
    archiveUrl: (timestamp) => http.url(archivePath(timestamp)),
    tileUrl: (timestamp) => http.url(tileTemplatePath(timestamp)),
    tileJsonUrl: (timestamp) => http.url(tileJsonPath(timestamp)),
    async tileJson(timestamp, signal) {
      return parseTileJson(await getJson(http, tileJsonPath(timestamp), 'TileJSON', signal));
    },
    async tile(timestamp, z, x, y, signal) {
      const response = await http.get(tilePath(timestamp, z, x, y), { signal });
      return response.blob();
    },
    openArchive: (timestamp) => new PMTiles(createArchiveSource(http, timestamp)),
    rateLimit: () => http.rateLimit(),
    onRateLimit: (listener) => http.onRateLimit(listener),
    onError: (listener) => http.onError(listener),
  };
}
