/**
 * CORS for browser map clients (@koa/cors). Preflights are answered here, before
 * authentication, so they need no credentials and cost no rate-limit point.
 */
import cors from '@koa/cors';
import type { Context, Middleware } from 'koa';

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
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
];

/** `origins` is `['*']` or the explicit allowed origins (`RADAR_CORS_ORIGINS`). */
export function corsMiddleware(origins: readonly string[]): Middleware {
  const allowAny = origins.includes('*');
  const allowed = new Set(origins);
  return cors({
    origin: (ctx: Context) => {
      if (allowAny) return '*';
      const origin = ctx.get('Origin');
      return allowed.has(origin) ? origin : '';
    },
    allowMethods: ['GET', 'HEAD', 'OPTIONS'],
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: 600,
    keepHeadersOnError: true,
  });
}

/**
 * The headers @koa/cors adds to an actual (non-preflight) request, as flat name/value pairs,
 * for the fast path, which answers without Koa (preflights always go through @koa/cors). The
 * fast-path equivalence test holds both paths to the same headers. `Vary: Origin` is the
 * caller's to add (it is combined with the route's own Vary).
 */
export function actualRequestCors(
  origins: readonly string[],
): (origin: string | undefined) => readonly string[] {
  const expose = CORS_EXPOSE_HEADERS.join(',');
  if (origins.includes('*')) {
    const any = ['Access-Control-Allow-Origin', '*', 'Access-Control-Expose-Headers', expose];
    return () => any;
  }
  const allowed = new Set(origins);
  return (origin) =>
    origin !== undefined && allowed.has(origin)
      ? ['Access-Control-Allow-Origin', origin, 'Access-Control-Expose-Headers', expose]
      : [];
}
