/**
 * `GET|HEAD /tiles/{timestamp}/{z}/{x}/{y}.png`: one tile out of a published archive, for
 * clients that do not speak PMTiles (Leaflet, OpenLayers XYZ, native SDKs, QGIS). Same
 * contract as the archive route: validation (400), lookup (404), then z against the
 * archive's zoom range (400), preconditions (304/412), and the bytes with an exact
 * Content-Length, byte-identical to what the `pmtiles` reader's `getZxy` returns.
 * A tile the archive does not hold answers the shared transparent PNG (docs/tiles.md).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Middleware } from 'koa';
import type { ArchiveMeta, ArchiveStore, CatalogReader } from '../../domain/ports';
import { parseTimestamp } from '../../domain/timestamps';
import { BadRequestError, NotFoundError, PreconditionFailedError } from '../../errors';
import { Compression, TileType, type PmtilesHeader } from '../../pmtiles/header';
import { zxyToTileId } from '../../pmtiles/tile-id';
import { EMPTY_TILE_PNG } from '../../tiles/empty-tile';
import { parseTileCoordinates, type TileCoordinates } from '../../tiles/tile-coordinates';
import type { TileLocator } from '../../tiles/tile-locator';
import { openResponseBody } from '../open-body';
import { evaluatePreconditions } from '../conditional';
import { immutableCacheControl } from '../cache-control';

export interface TileRouteDeps {
  readonly catalog: CatalogReader;
  readonly store: ArchiveStore;
  readonly tiles: TileLocator;
  readonly cacheControl: 'private' | 'public';
}

/** Content-Encoding of tile payloads the archive stores compressed (PNG archives use none). */
const TILE_ENCODING: Record<number, string | undefined> = {
  [Compression.Gzip]: 'gzip',
  [Compression.Brotli]: 'br',
  [Compression.Zstd]: 'zstd',
};

/**
 * Strong per-tile ETag, equal on every replica without hashing bytes: the archive's ETag
 * (the object store's, identical everywhere) and the tile's address. Archives are immutable,
 * so the pair names exactly one byte sequence.
 */
export function tileEtag(meta: ArchiveMeta, z: number, x: number, y: number): string {
  const inner = meta.etag.replace(/^W\//, '').replace(/"/g, '');
  return `"${inner}.${z}-${x}-${y}"`;
}

/** The archive and tile coordinates a tile URL names, or its 400/404. */
export function resolveTile(
  catalog: CatalogReader,
  timestamp: string,
  z: string,
  x: string,
  y: string,
): { readonly meta: ArchiveMeta; readonly coords: TileCoordinates } | Error {
  const coords = parseTileCoordinates(z, x, y);
  if (parseTimestamp(timestamp) === undefined || coords === undefined) return new BadRequestError();
  const meta = catalog.current().get(timestamp);
  if (meta === undefined) return new NotFoundError();
  return { meta, coords };
}

/**
 * What a tile request gets once the archive's header is known, before its window is looked
 * up: an error (z outside the zoom range, not a PNG archive, a failed If-Match), a 304, or
 * the headers to send with the tile. Shared by the Koa route and the fast path.
 */
export type TileHead =
  | { readonly kind: 'error'; readonly error: Error }
  | { readonly kind: 'not-modified'; readonly headers: Readonly<Record<string, string>> }
  | {
      readonly kind: 'send';
      readonly headers: Readonly<Record<string, string>>;
      /** Content-Encoding of the stored payload, if compressed. */
      readonly encoding: string | undefined;
    };

export function planTileHead(
  meta: ArchiveMeta,
  coords: TileCoordinates,
  header: PmtilesHeader,
  requestHeaders: IncomingHttpHeaders,
  cacheControl: string,
): TileHead {
  const { z, x, y } = coords;
  if (z < header.minZoom || z > header.maxZoom)
    return { kind: 'error', error: new BadRequestError() };
  // The URL promises PNG; an archive of another tile type holds no tile at this address.
  if (header.tileType !== TileType.Png) return { kind: 'error', error: new NotFoundError() };
  const etag = tileEtag(meta, z, x, y);
  const precondition = evaluatePreconditions(requestHeaders, {
    etag,
    lastModified: meta.lastModified,
  });
  if (precondition === 'precondition-failed')
    return { kind: 'error', error: new PreconditionFailedError() };
  const headers = {
    ETag: etag,
    'Last-Modified': meta.lastModified.toUTCString(),
    'Cache-Control': cacheControl,
  };
  if (precondition === 'not-modified') return { kind: 'not-modified', headers };
  return { kind: 'send', headers, encoding: TILE_ENCODING[header.tileCompression] };
}

export function tileRoute(deps: TileRouteDeps): Middleware {
  const cacheControl = immutableCacheControl(deps.cacheControl);
  return async (ctx) => {
    const target = resolveTile(
      deps.catalog,
      String(ctx.params.timestamp ?? ''),
      String(ctx.params.z ?? ''),
      String(ctx.params.x ?? ''),
      String(ctx.params.y ?? ''),
    );
    if (target instanceof Error) throw target;
    const { meta, coords } = target;
    const head = planTileHead(
      meta,
      coords,
      await deps.tiles.header(meta),
      ctx.req.headers,
      cacheControl,
    );
    if (head.kind === 'error') throw head.error;
    if (head.kind === 'not-modified') {
      ctx.set(head.headers);
      ctx.status = 304;
      return;
    }

    const window = await deps.tiles.locate(meta, zxyToTileId(coords.z, coords.x, coords.y));
    ctx.set(head.headers);
    ctx.set('Content-Type', 'image/png');
    ctx.status = 200;
    if (window === undefined) {
      // OGC API - Tiles' hint, so tools that care can tell "no echo" from a rendered tile.
      ctx.set('OATiles-hint', 'empty');
      if (ctx.method === 'GET') ctx.body = EMPTY_TILE_PNG;
      ctx.length = EMPTY_TILE_PNG.length;
      return;
    }
    if (head.encoding !== undefined) ctx.set('Content-Encoding', head.encoding);
    if (ctx.method === 'GET') {
      ctx.body = await openResponseBody(ctx, deps.store, meta, window);
      // Koa guesses a type from a Buffer/stream body; the tile's type is fixed.
      ctx.set('Content-Type', 'image/png');
    }
    ctx.length = window.length;
  };
}
