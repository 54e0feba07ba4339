/** Route templates of the API: the router's paths and the metrics' `route` label. */
export const STATUS_ROUTE = '/status.json';
export const ARCHIVE_ROUTE = '/tiles/:timestamp.pmtiles';
