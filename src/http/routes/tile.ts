/**
 * `GET|HEAD /tiles/{timestamp}/{z}/{x}/{y}.png`: one tile out of a published archive, for
 * clients that do not speak PMTiles (Leaflet, OpenLayers XYZ, native SDKs, QGIS). Same
 * contract as the archive route: validation (400), lookup (404), then z against the
 * archive's zoom range (400), preconditions (304/412), and the bytes with an exact
 * Content-Length, byte-identical to what the `pmtiles` reader's `getZxy` returns.
 * A tile the archive does not hold answers the shared transparent PNG (docs/tiles.md).
 */
import type { Middleware } from 'koa';
import type { ArchiveMeta, ArchiveStore, CatalogReader } from '../../domain/ports';
import { parseTimestamp } from '../../domain/timestamps';
import { BadRequestError, NotFoundError, PreconditionFailedError } from '../../errors';
import { Compression, TileType } from '../../pmtiles/header';
import { zxyToTileId } from '../../pmtiles/tile-id';
import { EMPTY_TILE_PNG } from '../../tiles/empty-tile';
import { parseTileCoordinates } from '../../tiles/tile-coordinates';
import type { TileLocator } from '../../tiles/tile-locator';
import { openResponseBody } from '../open-body';
import { evaluatePreconditions } from '../conditional';

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

export function tileRoute(deps: TileRouteDeps): Middleware {
  const cacheControl = `${deps.cacheControl}, max-age=31536000, immutable`;
  return async (ctx) => {
    const timestamp = String(ctx.params.timestamp ?? '');
    const coords = parseTileCoordinates(
      String(ctx.params.z ?? ''),
      String(ctx.params.x ?? ''),
      String(ctx.params.y ?? ''),
    );
    if (parseTimestamp(timestamp) === undefined || coords === undefined) {
      throw new BadRequestError();
    }
    const meta = deps.catalog.current().get(timestamp);
    if (meta === undefined) throw new NotFoundError();

    const header = await deps.tiles.header(meta);
    const { z, x, y } = coords;
    if (z < header.minZoom || z > header.maxZoom) throw new BadRequestError();
    // The URL promises PNG; an archive of another tile type holds no tile at this address.
    if (header.tileType !== TileType.Png) throw new NotFoundError();

    const etag = tileEtag(meta, z, x, y);
    const validators = { etag, lastModified: meta.lastModified };
    const precondition = evaluatePreconditions(ctx.req.headers, validators);
    if (precondition === 'precondition-failed') throw new PreconditionFailedError();
    const common = {
      ETag: etag,
      'Last-Modified': meta.lastModified.toUTCString(),
      'Cache-Control': cacheControl,
    };
    if (precondition === 'not-modified') {
      ctx.set(common);
      ctx.status = 304;
      return;
    }

    const window = await deps.tiles.locate(meta, zxyToTileId(z, x, y));
    ctx.set(common);
    ctx.set('Content-Type', 'image/png');
    ctx.status = 200;
    if (window === undefined) {
      // OGC API - Tiles' hint, so tools that care can tell "no echo" from a rendered tile.
      ctx.set('OATiles-hint', 'empty');
      if (ctx.method === 'GET') ctx.body = EMPTY_TILE_PNG;
      ctx.length = EMPTY_TILE_PNG.length;
      return;
    }
    const encoding = TILE_ENCODING[header.tileCompression];
    if (encoding !== undefined) ctx.set('Content-Encoding', encoding);
    if (ctx.method === 'GET') {
      ctx.body = await openResponseBody(ctx, deps.store, meta, window);
      // Koa guesses a type from a Buffer/stream body; the tile's type is fixed.
      ctx.set('Content-Type', 'image/png');
    }
    ctx.length = window.length;
  };
}
