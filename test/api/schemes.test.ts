/**
 * Colour schemes and the legend, in-process through real replicas: z/x/y tiles in a scheme
 * (every pixel in the scheme's colour, ETag per scheme, 304, HEAD, the transparent tile), the
 * scheme TileJSON, `/legend.json`, the archive contract on all of them (credentials, one
 * rate-limit point per request whatever the outcome, the error records), unknown schemes
 * (400), a stored tile not in the renderer's palette (500); and, in production (Redis, S3,
 * leased limits), that hot scheme tiles, the legend and a rendered scheme TileJSON are
 * answered without a promise.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { RedisRateLimiter } from '../../src/adapters/redis/rate-limiter';
import { COLOUR_SCHEMES, schemeRgba } from '../../src/palette/colour-schemes';
import { EMPTY_TILE_PNG } from '../../src/tiles/empty-tile';
import { createTileSchemes } from '../../src/tiles/tile-schemes';
import { buildLegend, type Legend } from '../../src/tiles/legend-document';
import { FOREIGN_TILE, schemeArchive, schemePixelMismatches } from '../fixtures/palette-tiles';
import {
  APPS,
  auth,
  type EmbeddedApi,
  injectInto,
  KEYS,
  startEmbeddedApi,
} from '../harness/embedded-api';
import { sample, scrape } from '../harness/fault-stack';
import { STACK_KEYS, stackAuth, startProductionStack } from '../harness/production-stack';
import { recentTimestamp } from '../harness/timestamps';

jest.setTimeout(60_000);

const TS = recentTimestamp(2);
const archive = schemeArchive(TS, true);
const TILE = [7, 10, 20] as const; // variantAt(7, 10, 20) is defined
const EMPTY = [7, 0, 3] as const; // (0 + 3 + 7) % 7 === 3: not stored
const HOT = [7, 12, 20] as const; // a stored tile no other test asks for in a scheme
const tilePath = (scheme: string | undefined, [z, x, y]: readonly number[], ts = TS) =>
  scheme === undefined
    ? `/tiles/${ts}/${z}/${x}/${y}.png`
    : `/tiles/${ts}/${scheme}/${z}/${x}/${y}.png`;

/** Every pixel of `png` has the colour `schemeId` gives the index the fixture stored there. */
function expectSchemePixels(png: Buffer, schemeId: string, [z, x, y]: readonly number[]): void {
  const palette = schemeRgba(COLOUR_SCHEMES.find((s) => s.id === schemeId)!);
  const wrong = schemePixelMismatches(png, palette, z!, x!, y!);
  expect({ schemeId, wrong }).toEqual({ schemeId, wrong: 0 });
}

describe('schemes on one embedded replica', () => {
  let api: EmbeddedApi;
  const get = (p: string, headers: Record<string, string> = {}, method = 'GET') =>
    api.inject(p, { method, headers: { ...auth(), ...headers } });

  beforeAll(async () => {
    api = await startEmbeddedApi({
      prepare: (_root, dataDir) => fs.writeFile(path.join(dataDir, `${TS}.pmtiles`), archive),
    });
    await api.waitForListed(TS);
  });
  afterAll(() => api?.stop());

  it('serves a tile in every scheme: its colours, its own ETag, the archive contract headers', async () => {
    const plain = await get(tilePath(undefined, TILE));
    expect(plain.status).toBe(200);
    const etags = new Set([String(plain.headers.etag)]);
    for (const { id } of COLOUR_SCHEMES) {
      const res = await get(tilePath(id, TILE));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['content-length']).toBe(String(res.body.length));
      expect(res.headers['cache-control']).toBe('private, max-age=31536000, immutable');
      expect(res.headers['last-modified']).toBe(plain.headers['last-modified']);
      expect(res.headers.etag).toMatch(new RegExp(`^"[^"]+\\.7-10-20\\.${id}-[0-9a-f]{8}"$`));
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['oatiles-hint']).toBeUndefined();
      for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
        expect(res.headers[h]).toMatch(/^[0-9]+$/);
      expectSchemePixels(res.body, id, TILE);
      etags.add(String(res.headers.etag));
      // HEAD: the same headers, the recoloured length, no body.
      const head = await get(tilePath(id, TILE), {}, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      for (const h of ['content-type', 'content-length', 'etag', 'cache-control', 'last-modified'])
        expect(head.headers[h]).toBe(res.headers[h]);
    }
    expect(etags.size).toBe(COLOUR_SCHEMES.length + 1);
    // The default scheme's palette is the stored one: the same bytes as the plain route.
    expect((await get(tilePath('nws', TILE))).body.equals(plain.body)).toBe(true);
  });

  it('a hot scheme tile comes from the recoloured tile cache: the first answer, byte for byte', async () => {
    const stored = (await get(tilePath(undefined, HOT))).body;
    const hits = async () =>
      sample(await scrape(api.replica.adminPort), 'radar_scheme_tile_cache_hits_total') ?? 0;
    const misses = async () =>
      sample(await scrape(api.replica.adminPort), 'radar_scheme_tile_cache_misses_total') ?? 0;
    const [hitsBefore, missesBefore] = [await hits(), await misses()];
    const first = await get(tilePath('cividis', HOT));
    const head = await get(tilePath('cividis', HOT), {}, 'HEAD');
    const again = await get(tilePath('cividis', HOT));
    const grey = await get(tilePath('grey-dbz', HOT));
    expect([first.status, head.status, again.status, grey.status]).toEqual([200, 200, 200, 200]);
    // What a fresh rewrite of the stored tile gives, every time; another scheme its own bytes.
    const fresh = createTileSchemes().get('cividis')!.recolour(stored);
    expect(first.body.equals(fresh)).toBe(true);
    expect(again.body.equals(fresh)).toBe(true);
    expect(head.headers['content-length']).toBe(String(fresh.length));
    expect(grey.body.equals(createTileSchemes().get('grey-dbz')!.recolour(stored))).toBe(true);
    // Rewritten once per scheme (the two misses), then answered from the cache.
    expect([(await hits()) - hitsBefore, (await misses()) - missesBefore]).toEqual([2, 2]);
  });

  it('304 for the scheme tile named by If-None-Match, 200 for another scheme, 412 on If-Match', async () => {
    const cividis = await get(tilePath('cividis', TILE));
    const again = await get(tilePath('cividis', TILE), {
      'If-None-Match': String(cividis.headers.etag),
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(cividis.headers.etag);
    expect(again.headers['x-ratelimit-remaining']).toMatch(/^[0-9]+$/);
    const other = await get(tilePath('grey-dbz', TILE), {
      'If-None-Match': String(cividis.headers.etag),
    });
    expect(other.status).toBe(200);
    const failed = await get(tilePath('cividis', TILE), { 'If-Match': '"other"' });
    expect(failed.status).toBe(412);
    expect(failed.json()).toEqual({ error: { code: 412, message: 'Precondition Failed' } });
  });

  it('a tile the archive does not hold: the shared transparent PNG in every scheme', async () => {
    for (const { id } of COLOUR_SCHEMES) {
      const res = await get(tilePath(id, EMPTY));
      expect(res.status).toBe(200);
      expect(res.body.equals(EMPTY_TILE_PNG)).toBe(true);
      expect(res.headers['oatiles-hint']).toBe('empty');
      expect(res.headers.etag).toMatch(new RegExp(`\\.7-0-3\\.${id}-[0-9a-f]{8}"$`));
    }
  });

  it.each([
    ['an unknown scheme', tilePath('rainbow', TILE)],
    ['a scheme id in capitals', tilePath('NWS', TILE)],
    ['an unknown scheme of an unpublished timestamp', tilePath('rainbow', TILE, '202001010000')],
    ['a known scheme with a non-canonical z', `/tiles/${TS}/nws/07/10/20.png`],
    ['a known scheme past the zoom range', `/tiles/${TS}/nws/8/0/0.png`],
    ['a malformed timestamp', tilePath('nws', TILE, '202613011200')],
    ['the TileJSON of an unknown scheme', `/tiles/${TS}/rainbow.json`],
    ['a scheme TileJSON of a malformed timestamp', '/tiles/2026/nws.json'],
  ])('400 for %s, with its point', async (_label, p) => {
    const res = await get(p);
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ error: { code: 400, message: 'Bad Request' } });
    expect(res.headers['x-ratelimit-remaining']).toMatch(/^[0-9]+$/);
    expect(res.headers.etag).toBeUndefined();
  });

  it('404 for a known scheme of an unpublished timestamp', async () => {
    for (const p of [
      tilePath('cividis', TILE, '202001010000'),
      '/tiles/202001010000/cividis.json',
    ]) {
      const res = await get(p);
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({ error: { code: 404, message: 'Not Found' } });
    }
  });

  it('500 for a stored tile that is not in the renderer palette; the plain route still serves it', async () => {
    const res = await get(tilePath('cividis', FOREIGN_TILE));
    expect(res.status).toBe(500);
    expect(res.json()).toEqual({ error: { code: 500, message: 'Internal Server Error' } });
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers['x-ratelimit-remaining']).toMatch(/^[0-9]+$/);
    expect((await get(tilePath(undefined, FOREIGN_TILE))).status).toBe(200);
  });

  it('TileJSON of a scheme names the tiles of that scheme; its template serves them', async () => {
    const plain = await get(`/tiles/${TS}.json`);
    const res = await get(`/tiles/${TS}/grey-dbz.json`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    const doc = res.json<{ tiles: string[] }>();
    expect(doc).toEqual({
      ...plain.json<Record<string, unknown>>(),
      tiles: [`${api.baseUrl}/tiles/${TS}/grey-dbz/{z}/{x}/{y}.png`],
    });
    expect(res.headers.etag).not.toBe(plain.headers.etag);
    const url = new URL(doc.tiles[0]!.replace('{z}/{x}/{y}', TILE.join('/')));
    const tile = await get(url.pathname);
    expectSchemePixels(tile.body, 'grey-dbz', TILE);
    const again = await get(`/tiles/${TS}/grey-dbz.json`, {
      'If-None-Match': String(res.headers.etag),
    });
    expect(again.status).toBe(304);
  });

  it('/legend.json: every scheme with steps, colours and labels; ETag, 304, encodings', async () => {
    const res = await get('/legend.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('private, max-age=3600');
    expect(res.headers.vary).toBe('Origin, Accept-Encoding');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      expect(res.headers[h]).toMatch(/^[0-9]+$/);
    const legend = res.json<Legend>();
    expect(legend).toEqual(buildLegend());
    expect(legend.default).toBe('nws');
    expect(legend.schemes.map((s) => s.id)).toEqual(COLOUR_SCHEMES.map((s) => s.id));
    const cividis = legend.schemes.find((s) => s.id === 'cividis')!;
    expect(cividis.tiles).toBe('/tiles/{timestamp}/cividis/{z}/{x}/{y}.png');
    expect(cividis.steps[0]).toEqual({
      index: 1,
      type: 'rain',
      min: 5,
      max: 10,
      label: '5–10 dBZ',
      color: '#002051',
      rgba: [0, 32, 81, 255],
      opacity: 1,
    });
    expect(cividis.steps[14]).toMatchObject({ index: 15, min: 75, max: null, label: '≥ 75 dBZ' });
    // Every step has its type: rain 1..15, snow 17..31, hail 33..47, in each scheme its colours.
    expect(cividis.steps[15]).toMatchObject({ index: 17, type: 'snow', min: 5, color: '#3569b8' });
    expect(cividis.steps[44]).toMatchObject({ index: 47, type: 'hail', min: 75, color: '#000000' });
    for (const scheme of legend.schemes) {
      expect(scheme.steps.map((s) => s.type)).toEqual(
        ['rain', 'snow', 'hail'].flatMap((t) => new Array<string>(15).fill(t)),
      );
      const palette = schemeRgba(COLOUR_SCHEMES.find((s) => s.id === scheme.id)!);
      expect(scheme.steps.map((s) => s.rgba)).toEqual(scheme.steps.map((s) => palette[s.index]));
    }

    const notModified = await get('/legend.json', { 'If-None-Match': String(res.headers.etag) });
    expect(notModified.status).toBe(304);
    expect(notModified.headers['cache-control']).toBe('private, max-age=3600');
    const gzip = await get('/legend.json', { 'Accept-Encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.etag).toBe(String(res.headers.etag).replace(/"$/, '-gzip"'));
    expect((await get('/legend.json', { 'If-Match': '"other"' })).status).toBe(412);
    const head = await get('/legend.json', {}, 'HEAD');
    expect([head.status, head.headers['content-length'], head.body.length]).toEqual([
      200,
      String(res.body.length),
      0,
    ]);
  });

  it('every answer from the rate-limit step on costs exactly one point', async () => {
    const sequence = [
      tilePath('cividis', TILE),
      tilePath('rainbow', TILE),
      tilePath('cividis', EMPTY),
      `/tiles/${TS}/cividis.json`,
      '/legend.json',
      tilePath('nws', TILE, '202001010000'),
    ];
    let last = Number((await get('/legend.json')).headers['x-ratelimit-remaining']);
    for (const p of sequence) {
      const remaining = Number((await get(p)).headers['x-ratelimit-remaining']);
      expect({ p, spent: last - remaining }).toEqual({ p, spent: 1 });
      last = remaining;
    }
  });

  it('401 and 403 on the new routes cost no point and carry no rate-limit headers', async () => {
    for (const p of [tilePath('cividis', TILE), `/tiles/${TS}/cividis.json`, '/legend.json']) {
      const none = await api.inject(p);
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toBe('Bearer');
      const forbidden = await api.inject(p, { headers: auth(KEYS.unbound, APPS.web) });
      expect(forbidden.status).toBe(403);
      for (const res of [none, forbidden]) expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});

describe('schemes in production (Redis, S3, leased limits): hot answers need no promise', () => {
  it('hot scheme tiles, the legend and a rendered scheme TileJSON are decided synchronously', async () => {
    const stack = await startProductionStack({ replicas: 1 });
    try {
      await stack.publish(TS, archive);
      const replica = stack.replicas[0]!;
      const limiter = replica.ports.limiter as RedisRateLimiter;
      const limit = stack.config().rate.limit;
      const send = (p: string, headers: Record<string, string> = {}) =>
        injectInto(replica, p, { headers: { ...stackAuth(STACK_KEYS.good), ...headers } });
      // Warm: the tile's directories and bytes, the rendered TileJSON, a leased block.
      for (const p of [tilePath(undefined, TILE), `/tiles/${TS}/cividis.json`, '/legend.json'])
        expect((await send(p)).status).toBe(200);
      const cividis = await send(tilePath('cividis', TILE));
      const cases: Array<[string, Record<string, string>, number]> = [
        [tilePath('cividis', TILE), {}, 200],
        [tilePath('grey-dbz', TILE), {}, 200],
        [tilePath('cividis', TILE), { 'If-None-Match': String(cividis.headers.etag) }, 304],
        [tilePath('rainbow', TILE), {}, 400],
        [`/tiles/${TS}/cividis.json`, {}, 200],
        ['/legend.json', {}, 200],
      ];
      for (const [p, headers, status] of cases) {
        // A request that renews the key's leased block waits for Redis: only a held point counts.
        if (limiter.held('good', limit) === 0) await send('/legend.json');
        expect(limiter.held('good', limit)).toBeGreaterThan(0);
        const res = await send(p, headers);
        expect({ p, status: res.status, sync: res.synchronous }).toEqual({ p, status, sync: true });
      }
    } finally {
      await stack.stop();
    }
  });
});
