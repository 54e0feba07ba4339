/**
 * `GET|HEAD /tiles/{timestamp}.pmtiles`: validation (400), lookup (404), preconditions
 * (304/412), range selection (206/416/200), then bytes streamed from the archive store with an
 * exact Content-Length. Metadata comes from the catalog snapshot; HEAD and conditional
 * answers never open the store.
 */
import type { Middleware } from 'koa';
import type { ArchiveStore, CatalogReader } from '../../domain/ports';
import { parseTimestamp } from '../../domain/timestamps';
import {
  BadRequestError,
  NotFoundError,
  PreconditionFailedError,
  RangeNotSatisfiableError,
} from '../../errors';
import { selectRange } from '../byte-range';
import { evaluatePreconditions, ifRangeAllows } from '../conditional';

export const PMTILES_CONTENT_TYPE = 'application/vnd.pmtiles';

export interface ArchiveRouteDeps {
  readonly catalog: CatalogReader;
  readonly store: ArchiveStore;
  /** `private` by default; operators may switch to `public` for shared caches. */
  readonly cacheControl: 'private' | 'public';
}

export function archiveRoute(deps: ArchiveRouteDeps): Middleware {
  const cacheControl = `${deps.cacheControl}, max-age=31536000, immutable`;
  return async (ctx) => {
    const timestamp = String(ctx.params.timestamp ?? '');
    if (parseTimestamp(timestamp) === undefined) throw new BadRequestError();
    const meta = deps.catalog.current().get(timestamp);
    if (meta === undefined) throw new NotFoundError();

    const validators = { etag: meta.etag, lastModified: meta.lastModified };
    const precondition = evaluatePreconditions(ctx.req.headers, validators);
    if (precondition === 'precondition-failed') throw new PreconditionFailedError();

    const common = {
      'Accept-Ranges': 'bytes',
      ETag: meta.etag,
      'Last-Modified': meta.lastModified.toUTCString(),
      'Cache-Control': cacheControl,
    };
    if (precondition === 'not-modified') {
      ctx.set(common);
      ctx.status = 304;
      return;
    }

    const rangeHeader = ifRangeAllows(ctx.req.headers, validators) ? ctx.get('Range') || undefined : undefined;
    const selection = selectRange(rangeHeader, meta.size);
    if (selection.kind === 'unsatisfiable') throw new RangeNotSatisfiableError(meta.size);
    const window =
      selection.kind === 'partial' ? selection.window : { offset: 0, length: meta.size };

    if (ctx.method === 'GET') {
      const abort = new AbortController();
      ctx.res.once('close', () => abort.abort());
      ctx.body = await deps.store.openRange(meta, window, abort.signal);
    }
    ctx.set(common);
    ctx.type = PMTILES_CONTENT_TYPE;
    ctx.length = window.length;
    if (selection.kind === 'partial') {
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${window.offset}-${selection.end}/${meta.size}`);
    } else {
      ctx.status = 200;
    }
  };
}
