/**
 * `GET|HEAD /tiles/{timestamp}.json`: the TileJSON 3.0.0 description of one archive, so
 * MapLibre/Mapbox SDKs, OpenLayers' TileJSON source and QGIS can use the z/x/y route from one
 * URL. Zoom range, bounds and center come from the archive header; name, description and
 * attribution from its metadata. There is deliberately no `latest` alias (docs/tiles.md).
 *
 * `GET|HEAD /tiles/{timestamp}/{scheme}.json` is the same document whose `tiles` URL names the
 * tiles in that colour scheme; an unknown scheme is a 400, before the lookup.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ArchiveMeta } from '../../domain/ports';
import { findScheme } from '../../palette/colour-schemes';
import { BadRequestError, PreconditionFailedError } from '../../errors';
import type { PmtilesHeader } from '../../pmtiles/header';
import type { TileLocator } from '../../tiles/tile-locator';
import { evaluatePreconditions } from './conditional';
import type { Answer } from './answer';
import type { ArchiveHeaderCache } from './archive-answer';
import type { PublicBaseUrl } from './public-base-url';
import type { FrameLookup } from './frame-lookup';
import type { CoreRequest } from './request';
import { jsonBytes } from '../../shared/json-text';

export interface TileJsonRouteDeps {
  readonly tiles: TileLocator;
  /** The public base URL of a request (`public-base-url.ts`); throws 400 for an unusable one. */
  readonly baseUrl: (headers: CoreRequest['headers']) => PublicBaseUrl;
}

/** The TileJSON 3.0.0 fields this service fills. */
interface TileJson {
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

/**
 * Builds the document (pure): `path` is the frame's public path (`/tiles/{timestamp}`), with
 * `schemeId` its tiles are those of that colour scheme, and `fields` are metadata objects it
 * carries as they are (a forecast frame's `forecast` and `motion`).
 */
function buildTileJson(
  baseUrl: string,
  path: string,
  timestamp: string,
  header: PmtilesHeader,
  metadata: Readonly<Record<string, unknown>>,
  schemeId: string | undefined,
  fields: readonly string[],
): TileJson {
  const scheme = schemeId === undefined ? '' : `/${schemeId}`;
  const carried: Record<string, unknown> = {};
  for (const field of fields) {
    const value = metadata[field];
    if (typeof value === 'object' && value !== null) carried[field] = value;
  }
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
    tiles: [`${baseUrl}${path}${scheme}/{z}/{x}/{y}.png`],
    minzoom: header.minZoom,
    maxzoom: header.maxZoom,
    bounds: [header.minLon, header.minLat, header.maxLon, header.maxLat],
    center: [
      header.centerLon,
      header.centerLat,
      Math.min(Math.max(header.centerZoom, header.minZoom), header.maxZoom),
    ],
    ...carried,
  };
}

interface Rendered {
  readonly body: Buffer;
  readonly etag: string;
}

/**
 * The TileJSON answerer: synchronous once the document of that archive version and base URL
 * is rendered (kept in a small LRU), a promise while the archive's header and metadata load.
 */
export function createTileJsonAnswerer(
  deps: TileJsonRouteDeps,
  versions: ArchiveHeaderCache,
  frames: FrameLookup,
): (request: CoreRequest, id: readonly string[], schemeId?: string) => Answer | Promise<Answer> {
  // One rendering per archive version and public base URL (a handful of hosts in practice).
  const rendered = new LRUCache<string, Rendered>({ max: 1024 });
  const render = async (
    meta: ArchiveMeta,
    baseUrl: string,
    schemeId: string | undefined,
    key: string,
  ): Promise<Rendered> => {
    const [header, metadata] = await Promise.all([
      deps.tiles.header(meta),
      deps.tiles.metadata(meta),
    ]);
    const body = jsonBytes(
      buildTileJson(
        baseUrl,
        frames.path(meta),
        meta.timestamp,
        header,
        metadata,
        schemeId,
        frames.tileJsonFields,
      ),
    );
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
    const value = { body, etag };
    rendered.set(key, value);
    return value;
  };

  const answer = (
    request: CoreRequest,
    meta: ArchiveMeta,
    doc: Rendered,
    vary: string,
    route: string,
  ): Answer => {
    const validators = { etag: doc.etag, lastModified: meta.lastModified };
    const precondition = evaluatePreconditions(request.headers, validators);
    if (precondition === 'precondition-failed') throw new PreconditionFailedError();
    const version = versions(meta);
    const headers = [
      'ETag',
      doc.etag,
      'Last-Modified',
      version.lastModified,
      'Cache-Control',
      version.cacheControl,
    ];
    const varies = vary === '' ? {} : { vary };
    if (precondition === 'not-modified') return { status: 304, route, headers, ...varies };
    headers.push('Content-Type', 'application/json');
    return {
      status: 200,
      route,
      headers,
      ...varies,
      body: doc.body,
      length: doc.body.length,
    };
  };

  return (request, id, schemeId) => {
    if (!frames.valid(id)) throw new BadRequestError();
    if (schemeId !== undefined && findScheme(schemeId) === undefined) throw new BadRequestError();
    const route = schemeId === undefined ? frames.routes.tilejson : frames.routes.schemeTilejson;
    const base = deps.baseUrl(request.headers);
    return frames.withMeta(id, (meta) => {
      const key = `${meta.timestamp}\0${meta.etag}\0${base.url}\0${schemeId ?? ''}`;
      const hit = rendered.get(key);
      if (hit !== undefined) return answer(request, meta, hit, base.vary, route);
      return render(meta, base.url, schemeId, key).then((doc) =>
        answer(request, meta, doc, base.vary, route),
      );
    });
  };
}
