/** Route templates of the API: the router's paths and the metrics' `route` label. */
export const STATUS_ROUTE = '/status.json';
export const ARCHIVE_ROUTE = '/tiles/:timestamp.pmtiles';
export const TILE_ROUTE = '/tiles/:timestamp/:z/:x/:y.png';
export const TILEJSON_ROUTE = '/tiles/:timestamp.json';
