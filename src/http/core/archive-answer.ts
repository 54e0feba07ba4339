/**
 * `GET|HEAD /tiles/{timestamp}.pmtiles`: validation (400), lookup (404), preconditions
 * (304/412), range selection (206/416/200), then the bytes from the block cache or the archive
 * store with an exact Content-Length. Metadata comes from the catalog snapshot; HEAD and
 * conditional answers never open the store.
 */
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

/** Validation, lookup, preconditions and range selection, from memory alone. */
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
 * The archive answerer: synchronous when the plan needs no bytes (HEAD, 304) or the window is
 * in the block cache, a promise for a store read.
 */
export function createArchiveAnswerer(
  deps: ArchiveRouteDeps,
): (request: CoreRequest, timestamp: string, caller: Caller) => Answer | Promise<Answer> {
  const headersOf = archiveHeaderCache(deps.cacheControl);
  return (request, timestamp, caller) => {
    const plan = planArchiveAnswer(deps.catalog, timestamp, request.headers);
    if (plan.kind === 'error') throw plan.error;
    const common = headersOf(plan.meta);
    if (plan.kind === 'not-modified') return { status: 304, route: ARCHIVE_ROUTE, headers: common };
    const headers = [...common, 'Content-Type', PMTILES_CONTENT_TYPE];
    if (plan.contentRange !== undefined) headers.push('Content-Range', plan.contentRange);
    const { status, window } = plan;
    const length = window.length;
    if (request.method !== 'GET') return { status, route: ARCHIVE_ROUTE, headers, length };
    const body = openBody(deps.store, plan.meta, window, request, caller);
    return body instanceof Promise
      ? body.then((opened) => ({ status, route: ARCHIVE_ROUTE, headers, length, body: opened }))
      : { status, route: ARCHIVE_ROUTE, headers, length, body };
  };
}
