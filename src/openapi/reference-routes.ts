/**
 * The HTML reference of the API, served by the service itself at `/reference/` without
 * credentials: Redoc rendered from the API description at build time (`npm run build`), one
 * self-contained page (scripts and description inlined). It makes no request to another
 * origin, and its Content-Security-Policy says so to the browser: scripts only those inlined
 * by the build (by hash), everything else from the page's own origin, `data:` or `blob:`.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import Router from '@koa/router';
import { ServiceUnavailableError } from '../errors';
import { answeredByPreconditions } from '../http/page-preconditions';
import { defaultOpenApiAssetsDir } from './openapi-document';
import { readIfExists } from '../shared/read-if-exists';

/** File name of the page inside the assets directory. */
export const REFERENCE_FILE = 'reference.html';
/** Seconds after which a client may look again when the page was never built. */
const UNBUILT_RETRY_AFTER_S = 60;

/** The page as served: bytes, strong ETag and the policy that admits its inline scripts. */
interface ReferencePage {
  readonly body: Buffer;
  readonly etag: string;
  readonly csp: string;
}

const INLINE_SCRIPT = /<script\b[^>]*>([\s\S]*?)<\/script>/gi;

/** The Content-Security-Policy of `html`: its inline scripts by SHA-256, nothing remote. */
export function referencePolicy(html: string): string {
  const hashes = [...html.matchAll(INLINE_SCRIPT)]
    .map((m) => m[1]!)
    .filter((source) => source.trim() !== '')
    .map((source) => `'sha256-${createHash('sha256').update(source).digest('base64')}'`);
  return [
    "default-src 'self'",
    `script-src 'self' ${hashes.join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    "connect-src 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

function readPage(file: string): ReferencePage | undefined {
  const body = readIfExists(file);
  if (body === undefined) return undefined;
  const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
  return { body, etag, csp: referencePolicy(body.toString('utf8')) };
}

/** Options of {@link createReferenceRoutes}. */
export interface ReferenceRoutesOptions {
  /** Directory of the built page; default {@link defaultOpenApiAssetsDir}. */
  readonly assetsDir?: string;
}

/**
 * Creates the reference router: `/reference` (redirect) and `/reference/`. The page (a few MB)
 * is read on the first request and kept; a page never built answers 503.
 */
export function createReferenceRoutes(options: ReferenceRoutesOptions = {}): Router {
  const file = path.join(options.assetsDir ?? defaultOpenApiAssetsDir(), REFERENCE_FILE);
  let page: ReferencePage | undefined;
  const load = (): ReferencePage => {
    page ??= readPage(file);
    if (page === undefined)
      throw new ServiceUnavailableError({ retryAfterS: UNBUILT_RETRY_AFTER_S });
    return page;
  };

  // Strict: `/reference` and `/reference/` are different routes (the first redirects).
  const router = new Router({ strict: true });
  router.get('/reference', (ctx) => {
    ctx.status = 301;
    ctx.redirect('/reference/');
  });
  router.get('/reference/', (ctx) => {
    const { body, etag, csp } = load();
    ctx.set('Content-Security-Policy', csp);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('ETag', etag);
    ctx.type = 'text/html; charset=utf-8';
    ctx.status = 200;
    if (answeredByPreconditions(ctx, { etag })) return;
    // HEAD: an empty body (a null one would turn the status into 204), the page's length.
    ctx.body = ctx.method === 'HEAD' ? '' : body;
    ctx.length = body.length;
  });
  return router;
}
