/**
 * The z/x/y tile and TileJSON contract (docs/tiles.md), written once and run against every
 * topology: one embedded replica, two replicas sharing Redis and S3, and nginx in front of
 * them, for an observed frame (`/tiles/{timestamp}`) and a forecast frame
 * (`/forecasts/{base}/{lead}`) alike. Expected tile bytes come from the independent `pmtiles` reader (`getZxy`) over the
 * same archive bytes, never from the service's own code.
 */
import { PMTiles } from 'pmtiles';
import { PNG } from 'pngjs';
import { createBufferSource } from '../fixtures/buffer-source';
import { archiveOf, pyramid } from '../fixtures/archives';
import type { ForecastFrameId } from '../../src/domain/forecast-frames';
import { forecastMetadataOf } from './forecast-archives';
import { request, type RawResponse } from './http-client';

/** A sparse archive (every 7th tile missing) large enough for leaf directories. */
export function sparseArchive(timestamp: string): Buffer {
  const tiles = pyramid(7, 48).filter((t) => (t.x + t.y + t.z) % 7 !== 3);
  return archiveOf(tiles, 7, {
    name: `Conformance ${timestamp}`,
    attribution: 'Test attribution',
    description: 'Sparse test archive',
  });
}

/**
 * The sparse archive as forecast frame `id` (the only lead of its cycle, so it is listed
 * alone), with the forecast metadata ingest requires and the TileJSON carries.
 */
export function sparseForecastArchive(id: ForecastFrameId): Buffer {
  const tiles = pyramid(7, 48).filter((t) => (t.x + t.y + t.z) % 7 !== 3);
  return archiveOf(tiles, 7, {
    name: `Conformance forecast ${id.base} +${id.lead}`,
    attribution: 'Test attribution',
    description: 'Sparse test archive',
    ...forecastMetadataOf(id),
  });
}

/** The URL family of a frame: `/tiles/{timestamp}`, or a forecast frame's. */
export interface FrameUrls {
  /** The frame's path without suffix: `/tiles/{timestamp}`, `/forecasts/{base}/{lead}`. */
  readonly path: string;
  /** Paths (without suffix) of the same family with a malformed id: 400. */
  readonly malformed: readonly string[];
  /** A well-formed path of the family that names no readable frame: 404. */
  readonly unknown: string;
  /** Metadata fields the TileJSON carries as they are. */
  readonly tileJsonFields: readonly string[];
}

/** The observed frame `timestamp`'s URLs. */
export function observedUrls(timestamp: string): FrameUrls {
  return {
    path: `/tiles/${timestamp}`,
    malformed: ['/tiles/202613011200', '/tiles/20261122', '/tiles/latest'],
    unknown: '/tiles/201901010000',
    tileJsonFields: [],
  };
}

/** Forecast frame `id`'s URLs. */
export function forecastUrls({ base, lead }: ForecastFrameId): FrameUrls {
  return {
    path: `/forecasts/${base}/${lead}`,
    malformed: [
      `/forecasts/${base}/0${lead}`,
      `/forecasts/${base}/0`,
      `/forecasts/${base}/1441`,
      `/forecasts/20261122/${lead}`,
      `/forecasts/202613011200/${lead}`,
      `/forecasts/latest/${lead}`,
    ],
    unknown: `/forecasts/201901010000/${lead}`,
    tileJsonFields: ['forecast', 'motion'],
  };
}

export interface TileTarget {
  /** Entry points; requests are spread over them (replicas) and ETags compared across them. */
  readonly baseUrls: readonly string[];
  readonly timestamp: string;
  readonly archive: Buffer;
  /** Credentials allowed with a large limit. */
  readonly auth: Record<string, string>;
  /** Known key and app that are not allowed together (403). */
  readonly forbiddenAuth: Record<string, string>;
  /** Credentials of a key with a small limit and its limit (429 once spent). */
  readonly limitedAuth: Record<string, string>;
  readonly limitedLimit: number;
  /** The frame's URL family (default: the observed frame `timestamp`'s). */
  readonly urls?: FrameUrls;
}

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

function expectRecord(res: RawResponse, code: number, message: string): void {
  expect(res.status).toBe(code);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.json()).toEqual({ error: { code, message } });
  expect(res.headers['x-content-type-options']).toBe('nosniff');
}

export function describeTileConformance(name: string, target: () => TileTarget): void {
  describe(`${name}: z/x/y tiles and TileJSON`, () => {
    let t: TileTarget;
    let u: FrameUrls;
    let reader: PMTiles;
    let metadata: Record<string, unknown>;
    let present: Array<[number, number, number]>;
    let missing: Array<[number, number, number]>;
    const get = (path: string, headers: Record<string, string> = {}, method = 'GET', i = 0) =>
      request(t.baseUrls[i % t.baseUrls.length]!, path, {
        method,
        headers: { ...t.auth, ...headers },
      });
    const tilePath = (z: number, x: number, y: number, frame = u.path) =>
      `${frame}/${z}/${x}/${y}.png`;

    beforeAll(async () => {
      t = target();
      u = t.urls ?? observedUrls(t.timestamp);
      reader = new PMTiles(createBufferSource(t.archive));
      metadata = (await reader.getMetadata()) as Record<string, unknown>;
      present = [];
      missing = [];
      const candidates: Array<[number, number, number]> = [
        [0, 0, 0],
        [1, 1, 0],
        [3, 2, 5],
        [4, 3, 7],
        [5, 17, 11],
        [6, 40, 22],
        [7, 127, 127],
        [7, 0, 0],
        [7, 64, 90],
        [2, 1, 0],
        [7, 1, 2],
        [6, 0, 3],
      ];
      for (const c of candidates) {
        ((await reader.getZxy(...c)) ? present : missing).push(c);
      }
      expect(present.length).toBeGreaterThanOrEqual(6);
      expect(missing.length).toBeGreaterThanOrEqual(2);
      expect((await reader.getHeader()).leafDirectoryLength).toBeGreaterThan(0);
    });

    it('200: bytes identical to pmtiles getZxy, with the archive contract headers', async () => {
      for (const [n, c] of present.entries()) {
        const expected = Buffer.from((await reader.getZxy(...c))!.data);
        const res = await get(tilePath(...c), {}, 'GET', n);
        expect(res.status).toBe(200);
        expect(res.body.equals(expected)).toBe(true);
        expect(res.headers['content-type']).toBe('image/png');
        expect(res.headers['content-length']).toBe(String(expected.length));
        expect(res.headers['content-encoding']).toBeUndefined();
        expect(res.headers['transfer-encoding']).toBeUndefined();
        expect(res.headers['cache-control']).toBe('private, max-age=31536000, immutable');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['access-control-allow-origin']).toBe('*');
        expect(res.headers.etag).toMatch(/^"[^"]+"$/);
        expect(res.headers['last-modified']).toBeDefined();
        for (const h of RATE_HEADERS) expect(res.headers[h]).toMatch(/^[0-9]+$/);
      }
    });

    it('strong ETag per tile, equal on every entry point, different between tiles', async () => {
      const [a, b] = present;
      const tags = new Set<string>();
      for (let i = 0; i < t.baseUrls.length; i++) {
        tags.add(String((await get(tilePath(...a!), {}, 'HEAD', i)).headers.etag));
      }
      expect(tags.size).toBe(1);
      const other = (await get(tilePath(...b!))).headers.etag;
      expect(other).not.toBe([...tags][0]);
    });

    it('304 on If-None-Match from any entry point; 412 on a failed If-Match', async () => {
      const first = await get(tilePath(...present[2]!));
      for (let i = 0; i < t.baseUrls.length; i++) {
        const res = await get(
          tilePath(...present[2]!),
          { 'If-None-Match': String(first.headers.etag) },
          'GET',
          i,
        );
        expect(res.status).toBe(304);
        expect(res.body.length).toBe(0);
        expect(res.headers.etag).toBe(first.headers.etag);
        for (const h of RATE_HEADERS) expect(res.headers[h]).toBeDefined();
      }
      const failed = await get(tilePath(...present[2]!), { 'If-Match': '"nope"' });
      expectRecord(failed, 412, 'Precondition Failed');
    });

    it('HEAD: the same headers as GET, no body', async () => {
      const c = present[3]!;
      const [head, full] = [await get(tilePath(...c), {}, 'HEAD'), await get(tilePath(...c))];
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      for (const h of ['content-type', 'content-length', 'etag', 'cache-control', 'last-modified'])
        expect(head.headers[h]).toBe(full.headers[h]);
    });

    it('a tile the archive does not hold: 200 with the shared transparent PNG', async () => {
      const bodies = new Set<string>();
      for (const c of missing) {
        const res = await get(tilePath(...c));
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('image/png');
        expect(res.headers['oatiles-hint']).toBe('empty');
        expect(res.headers['content-length']).toBe(String(res.body.length));
        expect(res.headers['cache-control']).toBe('private, max-age=31536000, immutable');
        const png = PNG.sync.read(res.body);
        expect([png.width, png.height]).toEqual([256, 256]);
        expect(png.data.every((_, i) => i % 4 !== 3 || png.data[i] === 0)).toBe(true);
        bodies.add(res.body.toString('base64'));
        const again = await get(tilePath(...c), { 'If-None-Match': String(res.headers.etag) });
        expect(again.status).toBe(304);
      }
      expect(bodies.size).toBe(1);
    });

    it.each([
      ['z with a leading zero', '/07/1/1.png'],
      ['x with a sign', '/3/+1/1.png'],
      ['negative y', '/3/1/-1.png'],
      ['x outside 0..2^z-1', '/3/8/1.png'],
      ['y outside 0..2^z-1', '/1/0/2.png'],
      ['z beyond the archive maxzoom', '/8/1/1.png'],
      ['z far beyond any archive', '/40/1/1.png'],
      ['exponent notation', '/1e0/0/0.png'],
      ['a decimal point', '/3/1.0/1.png'],
      ['hex', '/3/0x1/1.png'],
    ])('400 for %s', async (_label, suffix) => {
      const res = await get(`${u.path}${suffix}`);
      expectRecord(res, 400, 'Bad Request');
      for (const h of RATE_HEADERS) expect(res.headers[h]).toBeDefined();
    });

    it('400 for a malformed frame id, 404 for an unpublished one or another extension', async () => {
      for (const bad of u.malformed)
        expectRecord(await get(tilePath(0, 0, 0, bad)), 400, 'Bad Request');
      expectRecord(await get(tilePath(0, 0, 0, u.unknown)), 404, 'Not Found');
      expectRecord(await get(`${u.path}/0/0/0.jpg`), 404, 'Not Found');
      expectRecord(await get(`${u.path}/0/0.png`), 404, 'Not Found');
    });

    it('401 and 403 cost no point and carry no rate-limit headers', async () => {
      const none = await request(t.baseUrls[0]!, tilePath(0, 0, 0));
      expectRecord(none, 401, 'Unauthorized');
      expect(none.headers['www-authenticate']).toBe('Bearer');
      const bad = await request(t.baseUrls[0]!, tilePath(0, 0, 0), {
        headers: { ...t.auth, Authorization: 'Bearer rk_not-a-key' },
      });
      expectRecord(bad, 401, 'Unauthorized');
      const forbidden = await request(t.baseUrls[0]!, tilePath(0, 0, 0), {
        headers: t.forbiddenAuth,
      });
      expectRecord(forbidden, 403, 'Forbidden');
      for (const res of [none, bad, forbidden])
        for (const h of RATE_HEADERS) expect(res.headers[h]).toBeUndefined();
    });

    it('405 with Allow for other methods', async () => {
      const res = await get(tilePath(0, 0, 0), {}, 'POST');
      expectRecord(res, 405, 'Method Not Allowed');
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    });

    it('CORS preflight needs no credentials', async () => {
      const res = await request(t.baseUrls[0]!, tilePath(0, 0, 0), {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://maps.example.com',
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'authorization, x-app',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-methods']).toContain('GET');
      expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('x-app');
    });

    it('one point per tile; 429 with Retry-After once the key is spent', async () => {
      const statuses: number[] = [];
      let last: RawResponse | undefined;
      for (let i = 0; i < t.limitedLimit + 1; i++) {
        last = await request(t.baseUrls[i % t.baseUrls.length]!, tilePath(0, 0, 0), {
          headers: t.limitedAuth,
        });
        statuses.push(last.status);
      }
      expect(statuses.slice(0, t.limitedLimit).every((s) => s === 200)).toBe(true);
      expectRecord(last!, 429, 'Too Many Requests');
      expect(Number(last!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(last!.headers['x-ratelimit-remaining']).toBe('0');
    });

    it('TileJSON 3.0.0 from the archive header and metadata; its template serves the tiles', async () => {
      const header = await reader.getHeader();
      for (let i = 0; i < t.baseUrls.length; i++) {
        const res = await get(`${u.path}.json`, {}, 'GET', i);
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.headers['cache-control']).toBe('private, max-age=31536000, immutable');
        for (const h of RATE_HEADERS) expect(res.headers[h]).toBeDefined();
        const doc = res.json<Record<string, unknown>>();
        expect(doc).toMatchObject({
          tilejson: '3.0.0',
          name: metadata.name,
          attribution: 'Test attribution',
          description: 'Sparse test archive',
          scheme: 'xyz',
          minzoom: header.minZoom,
          maxzoom: header.maxZoom,
          bounds: [header.minLon, header.minLat, header.maxLon, header.maxLat],
          center: [header.centerLon, header.centerLat, header.centerZoom],
          tiles: [`${t.baseUrls[i]}${u.path}/{z}/{x}/{y}.png`],
        });
        for (const field of u.tileJsonFields) expect(doc[field]).toEqual(metadata[field]);
        if (u.tileJsonFields.length === 0) expect(doc).not.toHaveProperty('forecast');
        const template = (doc.tiles as string[])[0]!;
        const c = present[1]!;
        const url = new URL(
          template
            .replace('{z}', String(c[0]))
            .replace('{x}', String(c[1]))
            .replace('{y}', String(c[2])),
        );
        const tile = await request(url.origin, url.pathname, { headers: t.auth });
        expect(tile.body.equals(Buffer.from((await reader.getZxy(...c))!.data))).toBe(true);
        const again = await get(
          `${u.path}.json`,
          { 'If-None-Match': String(res.headers.etag) },
          'GET',
          i,
        );
        expect(again.status).toBe(304);
      }
      expectRecord(await get(`${u.unknown}.json`), 404, 'Not Found');
      for (const bad of u.malformed) expectRecord(await get(`${bad}.json`), 400, 'Bad Request');
      expectRecord(await request(t.baseUrls[0]!, `${u.path}.json`), 401, 'Unauthorized');
    });
  });
}
