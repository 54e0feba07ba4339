/**
 * The one table of public routes: the API's and the pages' (below), so every path's 404, 405,
 * `Allow` and OPTIONS are decided once, by the core. An API route has a kind (which also says
 * whether it needs credentials), a template (also its metric label) and how its path is
 * matched. The core matches requests against it; the request metrics are primed from it. A
 * route without credentials (the API description) skips the credential, origin and rate-limit
 * steps: it costs no point and reports no `X-RateLimit-*` headers, so tools can read it before
 * they have a key. API templates use path-to-regexp syntax (the router syntax of @koa/router),
 * compiled once: case-sensitive, no trailing slash, parameters one path segment each,
 * percent-decoded.
 */
import { pathToRegexp } from 'path-to-regexp';

/** Routes that need `Authorization` and `X-App`; the core has one handler per kind. */
export type CredentialedRouteKind =
  | 'status'
  | 'archive'
  | 'tilejson'
  | 'tile'
  | 'scheme-tilejson'
  | 'scheme-tile'
  | 'forecast-archive'
  | 'forecast-tilejson'
  | 'forecast-tile'
  | 'forecast-scheme-tilejson'
  | 'forecast-scheme-tile'
  | 'legend';
/** Routes anyone may read (no credentials, no rate-limit point). */
export type OpenRouteKind = 'openapi';

interface RouteShape {
  /** path-to-regexp template, e.g. `/tiles/:timestamp.pmtiles`. */
  readonly template: string;
}

export type CredentialedRoute = RouteShape & { readonly kind: CredentialedRouteKind };
export type OpenRoute = RouteShape & { readonly kind: OpenRouteKind };
/** A route of the table: its kind says whether it needs credentials. */
export type Route = CredentialedRoute | OpenRoute;

/** The open kinds, as a record so that a kind added to `OpenRouteKind` must be listed here. */
const OPEN_KINDS: Readonly<Record<OpenRouteKind, true>> = { openapi: true };

/** Whether `route` needs credentials, read from its kind. */
export function needsCredentials(route: Route): route is CredentialedRoute {
  return !(route.kind in OPEN_KINDS);
}

export const STATUS_ROUTE = '/status.json';
export const ARCHIVE_ROUTE = '/tiles/:timestamp.pmtiles';
export const TILEJSON_ROUTE = '/tiles/:timestamp.json';
export const TILE_ROUTE = '/tiles/:timestamp/:z/:x/:y.png';
/** TileJSON and z/x/y tiles in a colour scheme (one more path segment: the scheme id). */
export const SCHEME_TILEJSON_ROUTE = '/tiles/:timestamp/:scheme.json';
export const SCHEME_TILE_ROUTE = '/tiles/:timestamp/:scheme/:z/:x/:y.png';
/**
 * The same five answers for a forecast frame, named by its base time and lead (minutes):
 * never the shape of an observed URL (docs/behaviour.md, "Forecast frames").
 */
export const FORECAST_ARCHIVE_ROUTE = '/forecasts/:base/:lead.pmtiles';
export const FORECAST_TILEJSON_ROUTE = '/forecasts/:base/:lead.json';
export const FORECAST_TILE_ROUTE = '/forecasts/:base/:lead/:z/:x/:y.png';
export const FORECAST_SCHEME_TILEJSON_ROUTE = '/forecasts/:base/:lead/:scheme.json';
export const FORECAST_SCHEME_TILE_ROUTE = '/forecasts/:base/:lead/:scheme/:z/:x/:y.png';
export const LEGEND_ROUTE = '/legend.json';
export const OPENAPI_ROUTE = '/openapi.json';

/** The methods every route allows: GET and HEAD answer, OPTIONS describes (CORS, `Allow`). */
export const ROUTE_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const;
/** `Allow` of a 405 and of a plain OPTIONS, on every route (and of a refused `CONNECT`). */
export const ALLOWED_METHODS = ROUTE_METHODS.join(', ');

export const ROUTES: readonly Route[] = [
  { kind: 'status', template: STATUS_ROUTE },
  { kind: 'archive', template: ARCHIVE_ROUTE },
  { kind: 'tilejson', template: TILEJSON_ROUTE },
  { kind: 'tile', template: TILE_ROUTE },
  { kind: 'scheme-tilejson', template: SCHEME_TILEJSON_ROUTE },
  { kind: 'scheme-tile', template: SCHEME_TILE_ROUTE },
  { kind: 'forecast-archive', template: FORECAST_ARCHIVE_ROUTE },
  { kind: 'forecast-tilejson', template: FORECAST_TILEJSON_ROUTE },
  { kind: 'forecast-tile', template: FORECAST_TILE_ROUTE },
  { kind: 'forecast-scheme-tilejson', template: FORECAST_SCHEME_TILEJSON_ROUTE },
  { kind: 'forecast-scheme-tile', template: FORECAST_SCHEME_TILE_ROUTE },
  { kind: 'legend', template: LEGEND_ROUTE },
  { kind: 'openapi', template: OPENAPI_ROUTE },
];

/**
 * The pages on the public port, beside the API: the map viewer and the API's HTML reference.
 * They are routes of this table like the API's: the core decides their 404, 405, `Allow` and
 * OPTIONS as for any route, and hands a GET or HEAD of a page to the Koa app
 * (`http/koa-app.ts`), which serves the page's body. Its routers register these templates and
 * the request record labels by them, so each path is spelled once. Matched as @koa/router's
 * strict routers match: case-insensitive, a trailing slash significant; the first template
 * that matches names the route (config before asset). Pages need no credentials.
 */
export const PAGE_ROUTES = {
  root: '/',
  viewerRedirect: '/viewer',
  viewer: '/viewer/',
  viewerConfig: '/viewer/config.json',
  viewerAsset: '/viewer/:asset',
  referenceRedirect: '/reference',
  reference: '/reference/',
} as const;

const compiledPages = Object.values(PAGE_ROUTES).map((template) => ({
  template,
  regexp: pathToRegexp(template, { sensitive: false, trailing: false, end: true }).regexp,
}));

/** The page template `path` (no query) names, whatever the method, or undefined. */
export function matchPageRoute(path: string): string | undefined {
  return compiledPages.find(({ regexp }) => regexp.test(path))?.template;
}

/** A matched route and its decoded parameters, in template order. */
export interface RouteMatch {
  readonly route: Route;
  readonly params: readonly string[];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const compiled = ROUTES.map((route) => ({
  route,
  regexp: pathToRegexp(route.template, { sensitive: true, trailing: false, end: true }).regexp,
}));

/** The route `path` (no query) names, or undefined. */
export function matchRoute(path: string): RouteMatch | undefined {
  for (const { route, regexp } of compiled) {
    const found = regexp.exec(path);
    if (found === null) continue;
    const params: string[] = [];
    for (let i = 1; i < found.length; i++) {
      const value = found[i]!;
      params.push(value.includes('%') ? safeDecode(value) : value);
    }
    return { route, params };
  }
  return undefined;
}

/** The path of a request-target: origin form up to `?`, or the path of an absolute form. */
export function pathOf(target: string): string {
  if (target.charCodeAt(0) === 47 /* / */) {
    const query = target.indexOf('?');
    const hash = target.indexOf('#');
    const end = query < 0 ? hash : hash < 0 ? query : Math.min(query, hash);
    return end < 0 ? target : target.slice(0, end);
  }
  try {
    return new URL(target).pathname;
  } catch {
    return target;
  }
}
