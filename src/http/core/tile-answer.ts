/**
 * `GET|HEAD /tiles/{timestamp}/{z}/{x}/{y}.png` (and a forecast frame's
 * `/forecasts/{base}/{lead}/{z}/{x}/{y}.png`, `frame-lookup.ts`): one tile out of a published archive, for
 * clients that do not speak PMTiles (Leaflet, OpenLayers XYZ, native SDKs, QGIS). Same
 * contract as the archive route: validation (400), lookup (404), then z against the
 * archive's zoom range (400), preconditions (304/412), and the bytes with an exact
 * Content-Length, byte-identical to what the `pmtiles` reader's `getZxy` returns.
 * A tile the archive does not hold answers the shared transparent PNG (docs/tiles.md).
 *
 * `GET|HEAD /tiles/{timestamp}/{scheme}/{z}/{x}/{y}.png` is the same tile in a colour scheme:
 * an unknown scheme is a 400 (validation, before the lookup); the ETag carries the scheme's
 * tag; the stored bytes get the scheme's palette (`tiles/tile-schemes.ts`), so HEAD reads the
 * tile too (its length is the rewritten one). The shared transparent tile is transparent in
 * every scheme and is sent as it is. A stored tile that is not in the renderer's palette
 * cannot be recoloured: that is the service's own inconsistency, answered 500 and logged.
 */
import type { ArchiveMeta, ArchiveStore, ByteWindow } from '../../domain/ports';
import { readWhole } from '../../shared/read-whole';
import { BadRequestError, NotFoundError, PreconditionFailedError } from '../../errors';
import { Compression, TileType, type PmtilesHeader } from '../../pmtiles/header';
import { zxyToTileId } from '../../pmtiles/tile-id';
import { EMPTY_TILE_PNG } from '../../tiles/empty-tile';
import { parseTileCoordinates, type TileCoordinates } from '../../tiles/tile-coordinates';
import type { TileLocator } from '../../tiles/tile-locator';
import { createSchemeTileCache, type SchemeTileCache } from '../../tiles/scheme-tile-cache';
import { createTileSchemes, type TileScheme } from '../../tiles/tile-schemes';
import { evaluatePreconditions } from './conditional';
import type { Answer } from './answer';
import type { ArchiveHeaderCache } from './archive-answer';
import type { Caller } from './authorise';
import { openBody } from './open-body';
import type { FrameLookup } from './frame-lookup';
import type { CoreRequest } from './request';

export interface TileRouteDeps {
  readonly store: ArchiveStore;
  readonly tiles: TileLocator;
  /** Recoloured tiles kept for the scheme route; default: one of its default size, no metrics. */
  readonly schemeTiles?: SchemeTileCache;
}

/** Content-Encoding of tile payloads the archive stores compressed (PNG archives use none). */
const TILE_ENCODING: Record<number, string | undefined> = {
  [Compression.Gzip]: 'gzip',
  [Compression.Brotli]: 'br',
  [Compression.Zstd]: 'zstd',
};

/**
 * Strong per-tile ETag, equal on every replica without hashing bytes: the archive's ETag
 * (the object store's, identical everywhere; `opaqueEtag` is it without its quotes) and the
 * tile's address. Archives are immutable, so the pair names exactly one byte sequence.
 */
function tileEtag(
  opaqueEtag: string,
  z: number,
  x: number,
  y: number,
  scheme?: TileScheme,
): string {
  return scheme === undefined
    ? `"${opaqueEtag}.${z}-${x}-${y}"`
    : `"${opaqueEtag}.${z}-${x}-${y}.${scheme.tag}"`;
}

/** What a tile URL names once validated and looked up. */
interface TileTarget {
  readonly meta: ArchiveMeta;
  readonly coords: TileCoordinates;
  /** The PMTiles tile id of `coords`, computed once per request. */
  readonly tileId: number;
  /** The colour scheme of a scheme URL; undefined: the stored bytes. */
  readonly scheme: TileScheme | undefined;
}

/** Finds the tile's window once the answer needs it (undefined: the archive holds none). */
type WindowLookup = () => Promise<ByteWindow | undefined>;

/** The tile answerer's signature: `id` names the frame, `zxy` are `[z, x, y]`. */
export type TileAnswerer = (
  request: CoreRequest,
  id: readonly string[],
  zxy: readonly string[],
  caller: Caller,
  schemeId?: string,
) => Answer | Promise<Answer>;

/**
 * The tile answerer: synchronous when the archive's header and the tile's directories are
 * decoded in memory and the tile's bytes are cached (or the answer needs none), a promise
 * when the header, a directory or the bytes must be read. A 304 or an error never loads the
 * tile's directories. With a scheme the recolouring is a synchronous step on the cached
 * bytes, so a hot tile stays synchronous; the recoloured tile is kept
 * (`tiles/scheme-tile-cache.ts`), so a hot scheme tile is answered from memory without a
 * read, a rewrite or a new buffer, as a plain one is.
 */
export function createTileAnswerer(
  deps: TileRouteDeps,
  versions: ArchiveHeaderCache,
  frames: FrameLookup,
): TileAnswerer {
  const recoloured = deps.schemeTiles ?? createSchemeTileCache();
  const schemes = createTileSchemes();
  const TILE_ROUTE = frames.routes.tile;
  const SCHEME_TILE_ROUTE = frames.routes.schemeTile;

  /** The tile's bytes answer (`window` undefined: the archive holds no tile there). */
  const send = (
    request: CoreRequest,
    { meta, tileId, scheme }: TileTarget,
    headers: string[],
    encoding: string | undefined,
    window: ByteWindow | undefined,
    caller: Caller,
  ): Answer | Promise<Answer> => {
    const route = scheme === undefined ? TILE_ROUTE : SCHEME_TILE_ROUTE;
    if (window === undefined) {
      // OGC API - Tiles' hint, so tools that care can tell "no echo" from a rendered tile.
      headers.push('OATiles-hint', 'empty');
      return { status: 200, route, headers, body: EMPTY_TILE_PNG, length: EMPTY_TILE_PNG.length };
    }
    if (encoding !== undefined) headers.push('Content-Encoding', encoding);
    if (scheme === undefined) {
      const length = window.length;
      if (request.method !== 'GET') return { status: 200, route, headers, length };
      const body = openBody(deps.store, meta, window, request, caller);
      return body instanceof Promise
        ? body.then((opened) => ({ status: 200, route, headers, length, body: opened }))
        : { status: 200, route, headers, length, body };
    }
    // In a scheme even HEAD needs the bytes: the length is the recoloured tile's.
    const key = recoloured.key(meta, tileId, scheme);
    const kept = recoloured.get(key);
    if (kept !== undefined) return { status: 200, route, headers, length: kept.length, body: kept };
    const rewrite = (stored: Buffer): Answer => {
      const bytes = recoloured.recolour(key, scheme, stored);
      return { status: 200, route, headers, length: bytes.length, body: bytes };
    };
    const body = openBody(deps.store, meta, window, request, caller);
    return Buffer.isBuffer(body)
      ? rewrite(body)
      : Promise.resolve(body).then(readWhole).then(rewrite);
  };

  /**
   * The answer once the archive's header is known: z outside its zoom range (400), an archive
   * of another tile type than PNG (404) and a failed If-Match (412) are thrown, a 304 answered
   * at once; only a tile to send needs its window (`window`, or the lookup that finds it).
   */
  const answer = (
    request: CoreRequest,
    target: TileTarget,
    header: PmtilesHeader,
    window: ByteWindow | undefined | WindowLookup,
    caller: Caller,
  ): Answer | Promise<Answer> => {
    const { meta, coords, scheme } = target;
    const { z, x, y } = coords;
    if (z < header.minZoom || z > header.maxZoom) throw new BadRequestError();
    // The URL promises PNG; an archive of another tile type holds no tile at this address.
    if (header.tileType !== TileType.Png) throw new NotFoundError();
    const version = versions(meta);
    const etag = tileEtag(version.opaqueEtag, z, x, y, scheme);
    const precondition = evaluatePreconditions(request.headers, {
      etag,
      lastModified: meta.lastModified,
    });
    if (precondition === 'precondition-failed') throw new PreconditionFailedError();
    const headers = [
      'ETag',
      etag,
      'Last-Modified',
      version.lastModified,
      'Cache-Control',
      version.cacheControl,
    ];
    if (precondition === 'not-modified')
      return { status: 304, route: scheme === undefined ? TILE_ROUTE : SCHEME_TILE_ROUTE, headers };
    headers.push('Content-Type', 'image/png');
    const encoding = TILE_ENCODING[header.tileCompression];
    if (typeof window !== 'function')
      return send(request, target, headers, encoding, window, caller);
    return window().then((found) => send(request, target, headers, encoding, found, caller));
  };

  return (request, id, [z, x, y], caller, schemeId) => {
    // Validation (400), then the lookup (404): the frame's id, z/x/y and the scheme first.
    const coords = parseTileCoordinates(z!, x!, y!);
    if (!frames.valid(id) || coords === undefined) throw new BadRequestError();
    const scheme = schemeId === undefined ? undefined : schemes.get(schemeId);
    if (schemeId !== undefined && scheme === undefined) throw new BadRequestError();
    return frames.withMeta(id, (meta) => {
      const tileId = zxyToTileId(coords.z, coords.x, coords.y);
      const target: TileTarget = { meta, coords, tileId, scheme };
      const located = deps.tiles.peek(meta, tileId);
      if (located !== undefined)
        return answer(request, target, located.header, located.window, caller);
      return deps.tiles
        .header(meta)
        .then((header) =>
          answer(request, target, header, () => deps.tiles.locate(meta, tileId), caller),
        );
    });
  };
}
