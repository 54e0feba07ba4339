/**
 * `GET|HEAD /tiles/{timestamp}.json`: the TileJSON 3.0.0 description of one archive, so
 * MapLibre/Mapbox SDKs, OpenLayers' TileJSON source and QGIS can use the z/x/y route from one
 * URL. Zoom range, bounds and center come from the archive header; name, description and
 * attribution from its metadata. There is deliberately no `latest` alias (docs/tiles.md).
 */
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { LRUCache } from 'lru-cache';
import type { ArchiveMeta, CatalogReader } from '../../domain/ports';
import { parseTimestamp } from '../../domain/timestamps';
import { BadRequestError, NotFoundError, PreconditionFailedError } from '../../errors';
import type { PmtilesHeader } from '../../pmtiles/header';
import type { TileLocator } from '../../tiles/tile-locator';
import { evaluatePreconditions } from '../conditional';
import { publicBaseUrl } from '../public-base-url';
import { immutableCacheControl } from '../cache-control';

export interface TileJsonRouteDeps {
  readonly catalog: CatalogReader;
  readonly tiles: TileLocator;
  readonly cacheControl: 'private' | 'public';
}

/** The TileJSON 3.0.0 fields this service fills. */
export interface TileJson {
  readonly tilejson: '3.0.0';
  readonly name: string;
  readonly description?: string;
  readonly version?: string;
  readonly attribution?: string;
  readonly scheme: 'xyz';
  readonly tiles: readonly string[];
  readonly minzoom: number;
  readonly maxzoom: number;
  readonly bounds: readonly [number, number, number, number];
  readonly center: readonly [number, number, number];
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value : undefined;

/** Builds the document (pure; exported for tests and the client library's types). */
export function buildTileJson(
  baseUrl: string,
  timestamp: string,
  header: PmtilesHeader,
  metadata: Readonly<Record<string, unknown>>,
): TileJson {
  const description = text(metadata.description);
  const version = text(metadata.version);
  const attribution = text(metadata.attribution);
  return {
    tilejson: '3.0.0',
    name: text(metadata.name) ?? `Radar ${timestamp}`,
    ...(description !== undefined ? { description } : {}),
    ...(version !== undefined ? { version } : {}),
    ...(attribution !== undefined ? { attribution } : {}),
    scheme: 'xyz',
    tiles: [`${baseUrl}/tiles/${timestamp}/{z}/{x}/{y}.png`],
    minzoom: header.minZoom,
    maxzoom: header.maxZoom,
    bounds: [header.minLon, header.minLat, header.maxLon, header.maxLat],
    center: [
      header.centerLon,
      header.centerLat,
      Math.min(Math.max(header.centerZoom, header.minZoom), header.maxZoom),
    ],
  };
}

interface Rendered {
  readonly body: string;
  readonly etag: string;
}

export function tileJsonRoute(deps: TileJsonRouteDeps): Middleware {
  const cacheControl = immutableCacheControl(deps.cacheControl);
  // One rendering per archive version and public base URL (a handful of hosts in practice).
  const rendered = new LRUCache<string, Rendered>({ max: 1024 });
  const render = async (meta: ArchiveMeta, baseUrl: string): Promise<Rendered> => {
    const key = `${meta.timestamp}\0${meta.etag}\0${baseUrl}`;
    const hit = rendered.get(key);
    if (hit) return hit;
    const [header, metadata] = await Promise.all([
      deps.tiles.header(meta),
      deps.tiles.metadata(meta),
    ]);
    const body = JSON.stringify(buildTileJson(baseUrl, meta.timestamp, header, metadata));
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
    const value = { body, etag };
    rendered.set(key, value);
    return value;
  };

  return async (ctx) => {
    const timestamp = String(ctx.params.timestamp ?? '');
    if (parseTimestamp(timestamp) === undefined) throw new BadRequestError();
    const baseUrl = publicBaseUrl(ctx);
    if (baseUrl === undefined) throw new BadRequestError();
    const meta = deps.catalog.current().get(timestamp);
    if (meta === undefined) throw new NotFoundError();

    const doc = await render(meta, baseUrl);
    const validators = { etag: doc.etag, lastModified: meta.lastModified };
    const precondition = evaluatePreconditions(ctx.req.headers, validators);
    if (precondition === 'precondition-failed') throw new PreconditionFailedError();
    ctx.set({
      ETag: doc.etag,
      'Last-Modified': meta.lastModified.toUTCString(),
      'Cache-Control': cacheControl,
    });
    if (precondition === 'not-modified') {
      ctx.status = 304;
      return;
    }
    ctx.status = 200;
    ctx.set('Content-Type', 'application/json');
    if (ctx.method === 'GET') ctx.body = doc.body;
    ctx.length = Buffer.byteLength(doc.body);
  };
}
