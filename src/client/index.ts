/**
 * The radar tile client library: the supported way for map applications to call this API
 * (status, authenticated PMTiles range requests, rate-limit handling, MapLibre frames).
 * Runs in browsers and in Node 20+ (global `fetch`).
 */
export { archivePath, createArchiveSource } from './archive-source';
export { RadarApiError, RadarRateLimitError, RadarResponseError } from './errors';
export { explainError } from './explain-error';
export { parseForecastInfo, type RadarForecastInfo } from './forecast-info';
export { framePathStem } from './frame-paths';
export {
  LEGEND_PATH,
  legendPalette,
  parseLegend,
  schemeRewrite,
  type RadarLegend,
  type RadarLegendScheme,
  type RadarLegendStep,
} from './legend';
export {
  createFrameRegistry,
  guardedProtocolHandler,
  protocolKey,
  PMTILES_SCHEME,
  type FrameRegistry,
  type ProtocolHandler,
  type ProtocolRequest,
} from './frame-registry';
export {
  createRadarFrames,
  type MapLibreProtocols,
  type RadarFrames,
  type RadarFramesOptions,
  type RadarMapLike,
} from './map-frames';
export {
  MAX_MOTION_COLUMNS,
  motionAt,
  parseMotionField,
  type RadarMotionField,
} from './motion-field';
export { createRadarClient, type RadarClient, type RadarClientOptions } from './radar-client';
export { readRateLimit, retryDelayMs, type HeaderReader, type RateLimitState } from './rate-limit';
export {
  parseRadarStatus,
  timestampToDate,
  type RadarStatus,
  type RadarStatusForecast,
} from './status';
export {
  radarTimeline,
  type ForecastTimelineFrame,
  type ObservedTimelineFrame,
  type RadarTimelineFrame,
} from './timeline';
// The public surface re-exports what radar-client.ts imports; the lists match by design.
export {
  parseTileJson,
  tileJsonPath,
  tilePath,
  tileTemplatePath,
  type RadarTileJson,
} from './tiles';
export { watchStatus, type StatusWatch, type StatusWatchOptions } from './status-watcher';
export {
  createRadarTransport,
  type RadarCredentials,
  type RadarRequestInit,
  type RadarTransport,
  type RadarTransportOptions,
} from './transport';
