/**
 * The map viewer, served by the API itself at `/viewer/` without credentials: the page asks
 * for a key and app id and calls the API from the browser like any other client. Mount the
 * router with the Koa app (`pages`), which serves it once the core has routed a page request.
 *
 * In embedded mode the demo credentials are handed to the page through `/viewer/config.json`
 * so a fresh `npm start` shows radar with no typing. Only pass `demo` where the demo key is
 * meant to be public to everyone who can reach the port (the local embedded mode).
 */
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { NotFoundError, ServiceUnavailableError } from '../errors';
import { PAGE_ROUTES } from '../http/core/route-table';

/** Credentials the page is pre-filled with. */
export interface ViewerDemoCredentials {
  readonly apiKey: string;
  readonly appId: string;
}

/** What `/viewer/config.json` tells the page. */
export interface ViewerConfig {
  /** API base URL the page calls; `null`: the page's own origin. */
  readonly apiBaseUrl: string | null;
  /** Demo credentials to pre-fill, or `null` outside embedded mode. */
  readonly demo: ViewerDemoCredentials | null;
}

/** Options of {@link createViewerRoutes}. */
export interface ViewerRoutesOptions {
  /** Directory of the built page (`npm run build:viewer`); default {@link defaultViewerAssetsDir}. */
  readonly assetsDir?: string;
  /** Embedded mode's demo credentials; omit in production. */
  readonly demo?: ViewerDemoCredentials;
  /** API base URL if the API is not on the page's own origin. */
  readonly apiBaseUrl?: string;
}

/**
 * `dist/viewer/public` of this checkout, where `npm run build:viewer` writes: the same path
 * whether this module runs compiled from `dist/viewer/` or from source in `src/viewer/`.
 */
export function defaultViewerAssetsDir(): string {
  return path.resolve(__dirname, '..', '..', 'dist', 'viewer', 'public');
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** Asset names are flat file names: no directories, so no path can leave the assets directory. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function contentSecurityPolicy(apiBaseUrl: string | undefined): string {
  const api = apiBaseUrl ? ` ${new URL(apiBaseUrl).origin}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "worker-src 'self' blob:",
    `connect-src 'self'${api} data: blob:`,
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/**
 * Creates the viewer router: `/` (a browser is sent to the viewer), `/viewer` (redirect),
 * `/viewer/`, `/viewer/config.json`, assets.
 */
export function createViewerRoutes(options: ViewerRoutesOptions = {}): Router {
  const assetsDir = options.assetsDir ?? defaultViewerAssetsDir();
  const config: ViewerConfig = {
    apiBaseUrl: options.apiBaseUrl ?? null,
    demo: options.demo ?? null,
  };
  const csp = contentSecurityPolicy(options.apiBaseUrl);

  const sendAsset = async (ctx: Context, name: string) => {
    if (!ASSET_NAME.test(name)) throw new NotFoundError();
    const file = path.join(assetsDir, name);
    const stat = await fs.promises.stat(file).catch(() => undefined);
    if (!stat?.isFile()) {
      // No page at all means the bundle was never built: say "unavailable", not "not found".
      if (name === 'index.html') throw new ServiceUnavailableError({ retryAfterS: 60 });
      throw new NotFoundError();
    }
    // Size and modification time, as nginx's strong ETag for static files: the bundle is
    // replaced whole at each build, so both change with the bytes.
    const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('ETag', etag);
    ctx.set('Last-Modified', stat.mtime.toUTCString());
    ctx.type = CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream';
    // A conditional request is decided by the Koa app around every page (the core's evaluator).
    ctx.status = 200;
    // HEAD: an empty body (a null one would turn the status into 204), the file's length.
    ctx.body = ctx.method === 'HEAD' ? '' : fs.createReadStream(file);
    ctx.length = stat.size;
  };

  // Strict: `/viewer` and `/viewer/` are different routes (the first redirects to the second).
  const router = new Router({ strict: true });
  // `/`: a person's browser (it asks for HTML by name) is led to the viewer; an API client
  // (`*/*`, JSON, no Accept) gets the 404 of any path that is not a route.
  router.get(PAGE_ROUTES.root, (ctx) => {
    if (!/\btext\/html\b/i.test(ctx.get('Accept'))) throw new NotFoundError();
    ctx.set('Vary', 'Accept');
    ctx.set('Cache-Control', 'no-cache');
    ctx.status = 302;
    ctx.redirect('/viewer/');
  });
  router.get(PAGE_ROUTES.viewerRedirect, (ctx) => {
    ctx.status = 301;
    ctx.redirect(`/viewer/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
  });
  router.get(PAGE_ROUTES.viewer, async (ctx) => {
    ctx.set('Content-Security-Policy', csp);
    ctx.set('Referrer-Policy', 'no-referrer');
    await sendAsset(ctx, 'index.html');
  });
  router.get(PAGE_ROUTES.viewerConfig, (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = config;
  });
  router.get(PAGE_ROUTES.viewerAsset, async (ctx) => {
    await sendAsset(ctx, ctx.params.asset ?? '');
  });
  return router;
}
