/**
 * `GET|HEAD /tiles/{timestamp}.pmtiles`: validation (400), lookup (404), preconditions
 * (304/412), range selection (206/416/200), then the bytes from the block cache or the archive
 * store with an exact Content-Length. Metadata comes from the catalog snapshot; HEAD and
 * conditional answers never open the store.
 */
import type { ArchiveMeta, ArchiveStore, ByteWindow, CatalogReader } from '../../domain/ports';
import { parseTimestamp } from '../../domain/timestamps';
import {
  BadRequestError,
  NotFoundError,
  PreconditionFailedError,
  RangeNotSatisfiableError,
} from '../../errors';
import { selectRange } from '../byte-range';
import { evaluatePreconditions, ifRangeAllows } from '../conditional';
import { immutableCacheControl } from '../cache-control';
import type { Answer } from './answer';
import type { Caller } from './authorise';
import { openBody } from './open-body';
import type { CoreRequest } from './request';
import { ARCHIVE_ROUTE } from './route-table';

export const PMTILES_CONTENT_TYPE = 'application/vnd.pmtiles';

export interface ArchiveRouteDeps {
  readonly catalog: CatalogReader;
  readonly store: ArchiveStore;
  /** `private` by default; operators may switch to `public` for shared caches. */
  readonly cacheControl: 'private' | 'public';
}

/**
 * The per-archive headers as flat pairs, made once per catalog entry (`cacheControl` from the
 * config) and shared by every answer about that archive version.
 */
export function archiveHeaderCache(
  cacheControlSetting: 'private' | 'public',
): (meta: ArchiveMeta) => readonly string[] {
  const cacheControl = immutableCacheControl(cacheControlSetting);
  const headerCache = new WeakMap<ArchiveMeta, readonly string[]>();
  return (meta) => {
    let headers = headerCache.get(meta);
    if (!headers) {
      headers = [
        'Accept-Ranges',
        'bytes',
        'ETag',
        meta.etag,
        'Last-Modified',
        meta.lastModified.toUTCString(),
        'Cache-Control',
        cacheControl,
      ];
      headerCache.set(meta, headers);
    }
    return headers;
  };
}

/**
 * The archive answerer: validation (400), lookup (404), preconditions (412/304) and range
 * selection (416/206/200) from memory alone, each error thrown where it is decided; then
 * synchronous when the answer needs no bytes (HEAD, 304) or the window is in the block cache,
 * a promise for a store read.
 */
export function createArchiveAnswerer(
  deps: ArchiveRouteDeps,
): (request: CoreRequest, timestamp: string, caller: Caller) => Answer | Promise<Answer> {
  const headersOf = archiveHeaderCache(deps.cacheControl);
  return (request, timestamp, caller) => {
    // Only valid timestamps are ever published: the parse decides 400 or 404 on a miss.
    const meta = deps.catalog.current().get(timestamp);
    if (meta === undefined)
      throw parseTimestamp(timestamp) === undefined ? new BadRequestError() : new NotFoundError();
    const validators = { etag: meta.etag, lastModified: meta.lastModified };
    const precondition = evaluatePreconditions(request.headers, validators);
    if (precondition === 'precondition-failed') throw new PreconditionFailedError();
    const common = headersOf(meta);
    if (precondition === 'not-modified')
      return { status: 304, route: ARCHIVE_ROUTE, headers: common };

    const rangeHeader = ifRangeAllows(request.headers, validators)
      ? request.headers.range || undefined
      : undefined;
    const selection = selectRange(rangeHeader, meta.size);
    if (selection.kind === 'unsatisfiable') throw new RangeNotSatisfiableError(meta.size);
    const headers = [...common, 'Content-Type', PMTILES_CONTENT_TYPE];
    let status: 200 | 206;
    let window: ByteWindow;
    if (selection.kind === 'whole') {
      status = 200;
      window = { offset: 0, length: meta.size };
    } else {
      status = 206;
      window = selection.window;
      headers.push('Content-Range', `bytes ${window.offset}-${selection.end}/${meta.size}`);
    }
    const length = window.length;
    if (request.method !== 'GET') return { status, route: ARCHIVE_ROUTE, headers, length };
    const body = openBody(deps.store, meta, window, request, caller);
    return body instanceof Promise
      ? body.then((opened) => ({ status, route: ARCHIVE_ROUTE, headers, length, body: opened }))
      : { status, route: ARCHIVE_ROUTE, headers, length, body };
  };
}
