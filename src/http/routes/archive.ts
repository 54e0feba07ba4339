/**
 * `GET|HEAD /tiles/{timestamp}.pmtiles`: validation (400), lookup (404), preconditions
 * (304/412), range selection (206/416/200), then bytes streamed from the archive store with an
 * exact Content-Length. Metadata comes from the catalog snapshot; HEAD and conditional
 * answers never open the store.
 */
import type { Middleware } from 'koa';
import type { ArchiveMeta, ArchiveStore, CatalogReader } from '../../domain/ports';
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

export const PMTILES_CONTENT_TYPE = 'application/vnd.pmtiles';

export interface ArchiveRouteDeps {
  readonly catalog: CatalogReader;
  readonly store: ArchiveStore;
  /** `private` by default; operators may switch to `public` for shared caches. */
  readonly cacheControl: 'private' | 'public';
}

/** Headers every response about one archive carries; built once per archive, not per request. */
type ArchiveHeaders = Record<string, string> & {
  readonly 'Accept-Ranges': string;
  readonly ETag: string;
  readonly 'Last-Modified': string;
  readonly 'Cache-Control': string;
};

export function archiveRoute(deps: ArchiveRouteDeps): Middleware {
  const cacheControl = `${deps.cacheControl}, max-age=31536000, immutable`;
  const headerCache = new WeakMap<ArchiveMeta, ArchiveHeaders>();
  const headersOf = (meta: ArchiveMeta): ArchiveHeaders => {
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
  return async (ctx) => {
    const timestamp = String(ctx.params.timestamp ?? '');
    // Only valid timestamps are ever published: the parse decides 400 or 404 on a miss.
    const meta = deps.catalog.current().get(timestamp);
    if (meta === undefined) {
      throw parseTimestamp(timestamp) === undefined ? new BadRequestError() : new NotFoundError();
    }

    const validators = { etag: meta.etag, lastModified: meta.lastModified };
    const precondition = evaluatePreconditions(ctx.req.headers, validators);
    if (precondition === 'precondition-failed') throw new PreconditionFailedError();

    const common = headersOf(meta);
    if (precondition === 'not-modified') {
      ctx.set(common);
      ctx.status = 304;
      return;
    }

    const rangeHeader = ifRangeAllows(ctx.req.headers, validators)
      ? ctx.get('Range') || undefined
      : undefined;
    const selection = selectRange(rangeHeader, meta.size);
    if (selection.kind === 'unsatisfiable') throw new RangeNotSatisfiableError(meta.size);
    const window =
      selection.kind === 'partial' ? selection.window : { offset: 0, length: meta.size };

    if (ctx.method === 'GET') {
      const body = openResponseBody(ctx, deps.store, meta, window);
      ctx.body = body instanceof Promise ? await body : body;
    }
    ctx.set(common);
    ctx.set('Content-Type', PMTILES_CONTENT_TYPE);
    ctx.length = window.length;
    if (selection.kind === 'partial') {
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${window.offset}-${selection.end}/${meta.size}`);
    } else {
      ctx.status = 200;
    }
  };
}
