/**
 * CORS for browser map clients, as data: which origin a response may name and the headers an
 * actual request or a preflight gets. The core answers preflights (before credentials, so they
 * cost no rate-limit point); the answer writer adds the headers to every response. It follows
 * the Fetch standard's CORS protocol: a preflight is an `OPTIONS` with
 * `Access-Control-Request-Method` from an allowed origin; an origin not allowed gets no CORS
 * headers at all, and neither does a plain `OPTIONS`. With `*` every origin is allowed, a
 * request without `Origin` included (a non-browser client reading the headers is harmless).
 *
 * Written here rather than taken from a CORS middleware package: those (`@koa/cors`, `cors`)
 * write headers onto a framework's response object, while the core decides answers without
 * one; what is left is a lookup and two fixed header lists.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { RETRY_AFTER } from '../../errors';
import { RATE_LIMIT_HEADERS } from './rate-headers';
import { ROUTE_METHODS } from './route-table';

export const CORS_ALLOW_HEADERS = [
  'Authorization',
  'X-App',
  'Range',
  'If-None-Match',
  'If-Range',
  'If-Match',
];
export const CORS_EXPOSE_HEADERS = [
  'ETag',
  'Content-Range',
  'Content-Length',
  'Accept-Ranges',
  'Last-Modified',
  ...RATE_LIMIT_HEADERS,
  RETRY_AFTER,
];
/** Seconds a browser may cache a preflight answer. */
export const CORS_MAX_AGE_S = 600;
const CORS_ALLOW_METHODS = ROUTE_METHODS.join(',');

export interface CorsPolicy {
  /** Whether the request is a CORS preflight this service answers (an allowed origin). */
  isPreflight(method: string, headers: IncomingHttpHeaders): boolean;
  /**
   * The CORS headers of a response, flat pairs: the preflight's for a preflight answer, the
   * actual request's for any method but `OPTIONS`, none for another origin.
   */
  headers(method: string, origin: string | undefined, preflight: boolean): readonly string[];
}

/** `origins` is `['*']` or the explicit allowed origins (`RADAR_CORS_ORIGINS`). */
export function createCorsPolicy(origins: readonly string[]): CorsPolicy {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  const expose = CORS_EXPOSE_HEADERS.join(',');
  const allowHeaders = CORS_ALLOW_HEADERS.join(',');
  const allowedOrigin = (origin: string | undefined): string | undefined => {
    if (any) return '*';
    return origin !== undefined && allowed.has(origin) ? origin : undefined;
  };
  const anyActual = ['Access-Control-Allow-Origin', '*', 'Access-Control-Expose-Headers', expose];
  const actual = (value: string): readonly string[] =>
    value === '*'
      ? anyActual
      : ['Access-Control-Allow-Origin', value, 'Access-Control-Expose-Headers', expose];
  const preflight = (value: string): readonly string[] => [
    'Access-Control-Allow-Origin',
    value,
    'Access-Control-Max-Age',
    String(CORS_MAX_AGE_S),
    'Access-Control-Allow-Methods',
    CORS_ALLOW_METHODS,
    'Access-Control-Allow-Headers',
    allowHeaders,
  ];
  return {
    isPreflight: (method, headers) =>
      method === 'OPTIONS' &&
      !!headers['access-control-request-method'] &&
      allowedOrigin(headers.origin) !== undefined,
    headers(method, origin, isPreflight) {
      const value = allowedOrigin(origin);
      if (value === undefined) return [];
      if (isPreflight) return preflight(value);
      return method === 'OPTIONS' ? [] : actual(value);
    },
  };
}
