/**
 * The colour-scheme contract, written once and run against every topology with more than one
 * entry point or a proxy in front (two replicas sharing Redis and S3; nginx in front of them):
 * a tile in each scheme has the same bytes and ETag from every entry point and the scheme's
 * colours in every pixel, 304 from any entry point, unknown schemes are 400, each scheme's
 * TileJSON names its tiles at the entry point used, and `/legend.json` is the same document
 * with the same validators everywhere, negotiated encodings passing through untouched.
 */
import { gunzipSync } from 'node:zlib';
import { COLOUR_SCHEMES, schemeRgba } from '../../src/palette/colour-schemes';
import { EMPTY_TILE_PNG } from '../../src/tiles/empty-tile';
import { buildLegend } from '../../src/tiles/legend-document';
import { schemePixelMismatches, variantAt } from '../fixtures/palette-tiles';
import { request, type RawResponse } from './http-client';

export interface SchemeTarget {
  /** Entry points; ETags and bytes are compared across them. */
  readonly baseUrls: readonly string[];
  /** A published timestamp whose archive is `schemeArchive(timestamp)`. */
  readonly timestamp: string;
  /** The frame's path when it is not the observed `timestamp`'s (a forecast frame's). */
  readonly framePath?: string;
  readonly auth: Record<string, string>;
}

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
/** Tiles the fixture stores (`variantAt` defined) and one it does not. */
const TILES: ReadonlyArray<readonly [number, number, number]> = [
  [7, 10, 20],
  [5, 8, 12],
];
const EMPTY = [7, 0, 3] as const;

export function describeSchemeConformance(name: string, target: () => SchemeTarget): void {
  describe(`${name}: colour schemes and the legend`, () => {
    let t: SchemeTarget;
    const get = (
      base: string,
      path: string,
      headers: Record<string, string> = {},
      method = 'GET',
    ) => request(base, path, { method, headers: { ...t.auth, ...headers } });
    let frame: string;
    const tilePath = (scheme: string, [z, x, y]: readonly number[]) =>
      `${frame}/${scheme}/${z}/${x}/${y}.png`;

    beforeAll(() => {
      t = target();
      frame = t.framePath ?? `/tiles/${t.timestamp}`;
      for (const [z, x, y] of TILES) expect(variantAt(z, x, y)).toBeDefined();
      expect(variantAt(...EMPTY)).toBeUndefined();
    });

    it('a tile in each scheme: same bytes and ETag on every entry point, the scheme colours', async () => {
      const tags = new Set<string>();
      for (const scheme of COLOUR_SCHEMES) {
        const palette = schemeRgba(scheme);
        for (const tile of TILES) {
          const answers: RawResponse[] = [];
          for (const base of t.baseUrls) answers.push(await get(base, tilePath(scheme.id, tile)));
          for (const res of answers) {
            expect(res.status).toBe(200);
            expect(res.headers['content-type']).toBe('image/png');
            expect(res.headers['content-length']).toBe(String(res.body.length));
            expect(res.headers['cache-control']).toBe('private, max-age=31536000, immutable');
            expect(res.headers['x-content-type-options']).toBe('nosniff');
            for (const h of RATE_HEADERS) expect(res.headers[h]).toMatch(/^[0-9]+$/);
            expect(res.headers.etag).toBe(answers[0]!.headers.etag);
            expect(res.body.equals(answers[0]!.body)).toBe(true);
          }
          expect({
            scheme: scheme.id,
            wrong: schemePixelMismatches(answers[0]!.body, palette, ...tile),
          }).toEqual({ scheme: scheme.id, wrong: 0 });
          tags.add(String(answers[0]!.headers.etag));
        }
        const empty = await get(t.baseUrls[0]!, tilePath(scheme.id, EMPTY));
        expect(empty.status).toBe(200);
        expect(empty.body.equals(EMPTY_TILE_PNG)).toBe(true);
        expect(empty.headers['oatiles-hint']).toBe('empty');
      }
      expect(tags.size).toBe(COLOUR_SCHEMES.length * TILES.length);
    });

    it('304 from every entry point with the ETag another one gave', async () => {
      const first = await get(t.baseUrls[0]!, tilePath('cividis', TILES[0]!));
      for (const base of t.baseUrls) {
        const res = await get(base, tilePath('cividis', TILES[0]!), {
          'If-None-Match': String(first.headers.etag),
        });
        expect(res.status).toBe(304);
        expect(res.body.length).toBe(0);
        expect(res.headers.etag).toBe(first.headers.etag);
        for (const h of RATE_HEADERS) expect(res.headers[h]).toMatch(/^[0-9]+$/);
      }
    });

    it('400 with the error record for an unknown scheme; 401 without credentials', async () => {
      for (const base of t.baseUrls) {
        const res = await get(base, tilePath('rainbow', TILES[0]!));
        expect(res.status).toBe(400);
        expect(res.json()).toEqual({ error: { code: 400, message: 'Bad Request' } });
        for (const h of RATE_HEADERS) expect(res.headers[h]).toMatch(/^[0-9]+$/);
        const none = await request(base, tilePath('cividis', TILES[0]!));
        expect(none.status).toBe(401);
        expect(none.headers['x-ratelimit-limit']).toBeUndefined();
      }
    });

    it('each scheme TileJSON names its tiles at the entry point used', async () => {
      for (const base of t.baseUrls) {
        const res = await get(base, `${frame}/grey-dbz.json`);
        expect(res.status).toBe(200);
        const doc = res.json<{ tiles: string[] }>();
        expect(doc.tiles).toEqual([`${base}${frame}/grey-dbz/{z}/{x}/{y}.png`]);
        const url = new URL(doc.tiles[0]!.replace('{z}/{x}/{y}', TILES[1]!.join('/')));
        const tile = await request(url.origin, url.pathname, { headers: t.auth });
        expect(tile.status).toBe(200);
        const palette = schemeRgba(COLOUR_SCHEMES.find((s) => s.id === 'grey-dbz')!);
        expect(schemePixelMismatches(tile.body, palette, ...TILES[1]!)).toBe(0);
      }
    });

    it('/legend.json: the same document and validators everywhere, 304, encodings intact', async () => {
      const answers: RawResponse[] = [];
      for (const base of t.baseUrls) answers.push(await get(base, '/legend.json'));
      for (const res of answers) {
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/json');
        expect(res.headers['cache-control']).toBe('private, max-age=3600');
        expect(res.headers['content-encoding']).toBeUndefined();
        expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
        expect(res.headers.etag).toBe(answers[0]!.headers.etag);
        for (const h of RATE_HEADERS) expect(res.headers[h]).toMatch(/^[0-9]+$/);
        expect(res.json()).toEqual(buildLegend());
      }
      const etag = String(answers[0]!.headers.etag);
      for (const base of t.baseUrls) {
        expect((await get(base, '/legend.json', { 'If-None-Match': etag })).status).toBe(304);
        const gzip = await get(base, '/legend.json', { 'Accept-Encoding': 'gzip' });
        expect(gzip.headers['content-encoding']).toBe('gzip');
        expect(gzip.headers.etag).toBe(etag.replace(/"$/, '-gzip"'));
        expect(JSON.parse(gunzipSync(gzip.body).toString('utf8'))).toEqual(buildLegend());
        const none = await request(base, '/legend.json');
        expect(none.status).toBe(401);
      }
    });
  });
}
