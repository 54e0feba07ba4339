/**
 * `GET|HEAD /tiles/{timestamp}.pmtiles`: validation (400), lookup (404), preconditions
 * (304/412), range selection (206/416/200), then bytes streamed from the archive store with an
 * exact Content-Length. Metadata comes from the catalog snapshot; HEAD and conditional
 * answers never open the store.
 */
import type { Middleware } from 'koa';
import type { IncomingHttpHeaders } from 'node:http';
import type { ArchiveMeta, ArchiveStore, ByteWindow, CatalogReader } from '../../domain/ports';
import { parseTimestamp } from '../../domain/timestamps';
import {
  BadRequestError,
  NotFoundError,
  PreconditionFailedError,
  RangeNotSatisfiableError,
} from '../../errors';
import { selectRange } from '../byte-range';
import { openResponseBody } from '../open-body';
import { evaluatePreconditions, ifRangeAllows } from '../conditional';
import { immutableCacheControl } from '../cache-control';

export const PMTILES_CONTENT_TYPE = 'application/vnd.pmtiles';

export interface ArchiveRouteDeps {
  readonly catalog: CatalogReader;
  readonly store: ArchiveStore;
  /** `private` by default; operators may switch to `public` for shared caches. */
  readonly cacheControl: 'private' | 'public';
}

/** Headers every response about one archive carries; built once per archive, not per request. */
export type ArchiveHeaders = Record<string, string> & {
  readonly 'Accept-Ranges': string;
  readonly ETag: string;
  readonly 'Last-Modified': string;
  readonly 'Cache-Control': string;
};

/**
 * What an archive request gets, decided from the catalog entry and the request headers alone
 * (no I/O): an error, a 304, or a status with the window of bytes to send.
 */
export type ArchivePlan =
  | { readonly kind: 'error'; readonly error: Error }
  | { readonly kind: 'not-modified'; readonly meta: ArchiveMeta }
  | {
      readonly kind: 'send';
      readonly meta: ArchiveMeta;
      readonly status: 200 | 206;
      readonly window: ByteWindow;
      /** `Content-Range` of a 206. */
      readonly contentRange?: string;
    };

/** Validation, lookup, preconditions and range selection; shared by the route and fast path. */
export function planArchiveAnswer(
  catalog: CatalogReader,
  timestamp: string,
  headers: IncomingHttpHeaders,
): ArchivePlan {
  // Only valid timestamps are ever published: the parse decides 400 or 404 on a miss.
  const meta = catalog.current().get(timestamp);
  if (meta === undefined) {
    const error =
      parseTimestamp(timestamp) === undefined ? new BadRequestError() : new NotFoundError();
    return { kind: 'error', error };
  }
  const validators = { etag: meta.etag, lastModified: meta.lastModified };
  const precondition = evaluatePreconditions(headers, validators);
  if (precondition === 'precondition-failed')
    return { kind: 'error', error: new PreconditionFailedError() };
  if (precondition === 'not-modified') return { kind: 'not-modified', meta };

  const rangeHeader = ifRangeAllows(headers, validators) ? headers.range || undefined : undefined;
  const selection = selectRange(rangeHeader, meta.size);
  if (selection.kind === 'unsatisfiable')
    return { kind: 'error', error: new RangeNotSatisfiableError(meta.size) };
  if (selection.kind === 'whole')
    return { kind: 'send', meta, status: 200, window: { offset: 0, length: meta.size } };
  return {
    kind: 'send',
    meta,
    status: 206,
    window: selection.window,
    contentRange: `bytes ${selection.window.offset}-${selection.end}/${meta.size}`,
  };
}

/** The per-archive headers, made once per catalog entry (`cacheControl` from the config). */
export function archiveHeaderCache(
  cacheControlSetting: 'private' | 'public',
): (meta: ArchiveMeta) => ArchiveHeaders {
  const cacheControl = immutableCacheControl(cacheControlSetting);
  const headerCache = new WeakMap<ArchiveMeta, ArchiveHeaders>();
  return (meta) => {
    let headers = headerCache.get(meta);
    if (!headers) {
      headers = {
        'Accept-Ranges': 'bytes',
        ETag: meta.etag,
        'Last-Modified': meta.lastModified.toUTCString(),
        'Cache-Control': cacheControl,
      };
      headerCache.set(meta, headers);
    }
    return headers;
  };
}

export function archiveRoute(deps: ArchiveRouteDeps): Middleware {
  const headersOf = archiveHeaderCache(deps.cacheControl);
  return async (ctx) => {
    const plan = planArchiveAnswer(
      deps.catalog,
      String(ctx.params.timestamp ?? ''),
      ctx.req.headers,
    );
    if (plan.kind === 'error') throw plan.error;
    const common = headersOf(plan.meta);
    if (plan.kind === 'not-modified') {
      ctx.set(common);
      ctx.status = 304;
      return;
    }
    if (ctx.method === 'GET') {
      const body = openResponseBody(ctx, deps.store, plan.meta, plan.window);
      ctx.body = body instanceof Promise ? await body : body;
    }
    ctx.set(common);
    ctx.set('Content-Type', PMTILES_CONTENT_TYPE);
    ctx.length = plan.window.length;
    ctx.status = plan.status;
    if (plan.contentRange !== undefined) ctx.set('Content-Range', plan.contentRange);
  };
}
