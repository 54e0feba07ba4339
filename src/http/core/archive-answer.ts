/**
 * `GET|HEAD /tiles/{timestamp}.pmtiles` and `/forecasts/{base}/{lead}.pmtiles`: validation
 * (400), lookup (404), preconditions (304/412), range selection (206/416/200), then the bytes
 * from the block cache or the archive store with an exact Content-Length. Metadata comes from
 * the frame's catalog (`frame-lookup.ts`); HEAD and conditional answers never open the store.
 */
import type { ArchiveMeta, ArchiveStore, ByteWindow } from '../../domain/ports';
import { PreconditionFailedError, RangeNotSatisfiableError } from '../../errors';
import { selectRange } from './byte-range';
import { evaluatePreconditions, ifRangeAllows } from './conditional';
import { immutableCacheControl } from './cache-control';
import type { Answer } from './answer';
import type { Caller } from './authorise';
import { openBody } from './open-body';
import type { FrameLookup } from './frame-lookup';
import type { CoreRequest } from './request';

export const PMTILES_CONTENT_TYPE = 'application/vnd.pmtiles';

export interface ArchiveRouteDeps {
  readonly store: ArchiveStore;
}

/**
 * What every answer about one archive version repeats (the archive's, its tiles' and its
 * TileJSON's), as text made once per catalog entry instead of once per request.
 */
export interface ArchiveVersionHeaders {
  /** `Last-Modified`: when the archive was stored, as an HTTP-date. */
  readonly lastModified: string;
  /** The archive's ETag without its quotes or weak prefix: a tile's ETag extends it. */
  readonly opaqueEtag: string;
  /** `Cache-Control` of everything the version addresses (immutable; `RADAR_CACHE_CONTROL`). */
  readonly cacheControl: string;
  /** The archive answer's own headers as flat pairs. */
  readonly archive: readonly string[];
}

/** Reads an archive version's headers, made on first use per catalog entry. */
export type ArchiveHeaderCache = (meta: ArchiveMeta) => ArchiveVersionHeaders;

/**
 * The per-version header cache the archive, tile and TileJSON answers share (`cacheControl`
 * from the config), keyed by the catalog entry itself, so it goes with its snapshot.
 */
export function archiveHeaderCache(cacheControlSetting: 'private' | 'public'): ArchiveHeaderCache {
  const cacheControl = immutableCacheControl(cacheControlSetting);
  const cache = new WeakMap<ArchiveMeta, ArchiveVersionHeaders>();
  return (meta) => {
    let version = cache.get(meta);
    if (version === undefined) {
      const lastModified = meta.lastModified.toUTCString();
      version = {
        lastModified,
        opaqueEtag: meta.etag.replace(/^W\//, '').replace(/"/g, ''),
        cacheControl,
        archive: [
          'Accept-Ranges',
          'bytes',
          'ETag',
          meta.etag,
          'Last-Modified',
          lastModified,
          'Cache-Control',
          cacheControl,
        ],
      };
      cache.set(meta, version);
    }
    return version;
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
  versions: ArchiveHeaderCache,
  frames: FrameLookup,
): (request: CoreRequest, id: readonly string[], caller: Caller) => Answer | Promise<Answer> {
  const ARCHIVE_ROUTE = frames.routes.archive;
  return (request, id, caller) => frames.withMeta(id, (meta) => answerFor(request, meta, caller));

  function answerFor(
    request: CoreRequest,
    meta: ArchiveMeta,
    caller: Caller,
  ): Answer | Promise<Answer> {
    const validators = { etag: meta.etag, lastModified: meta.lastModified };
    const precondition = evaluatePreconditions(request.headers, validators);
    if (precondition === 'precondition-failed') throw new PreconditionFailedError();
    const common = versions(meta).archive;
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
  }
}
