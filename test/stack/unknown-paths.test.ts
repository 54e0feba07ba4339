/**
 * Paths that are no API route get the server's final 404 with the error record, with or
 * without credentials: matching is exact (case, trailing slash), so near misses of the API's
 * paths are unknown too. Only `/` asked for by a browser (it names `text/html`) is led to the
 * viewer. Every JSON body, answers and error records alike, ends with a newline.
 */
import { auth, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { buildArchive } from '../fixtures/archives';

const TS = '202611221400';
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApiWith(TS, buildArchive(TS));
});
afterAll(() => api.stop());

it.each([
  '/nope',
  '/STATUS.JSON',
  '/status.json/',
  '/Status.json',
  `/tiles/${TS}.PMTILES`,
  `/tiles/${TS}.pmtiles/`,
  '/tiles/',
  '/tiles',
  '/',
])('%s -> 404 with the error record, with or without credentials', async (p) => {
  for (const headers of [{}, auth()]) {
    const res = await request(api.baseUrl, p, { headers });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ error: { code: 404, message: 'Not Found' } });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  }
});

describe('/ leads a person to the viewer', () => {
  const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

  it.each(['GET', 'HEAD'])(
    '%s / from a browser: 302 to /viewer/, varying on Accept',
    async (method) => {
      const res = await request(api.baseUrl, '/', { method, headers: { Accept: BROWSER } });
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/viewer/');
      expect(res.headers.vary).toMatch(/\bAccept\b/);
    },
  );

  it.each(['*/*', 'application/json', 'application/json, */*'])(
    'Accept: %s (an API client) still gets the 404 record',
    async (accept) => {
      const res = await request(api.baseUrl, '/', { headers: { Accept: accept } });
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({ error: { code: 404, message: 'Not Found' } });
    },
  );
});

describe('every JSON body ends with a newline', () => {
  it.each([
    ['/status.json', auth(), 200],
    ['/legend.json', auth(), 200],
    [`/tiles/${TS}.json`, auth(), 200],
    [`/tiles/${TS}/nws.json`, auth(), 200],
    ['/openapi.json', {}, 200],
    ['/viewer/config.json', {}, 200],
    ['/status.json', {}, 401],
    ['/nope', {}, 404],
    ['/tiles/20261122.pmtiles', auth(), 400],
  ] as const)('%s (case %#)', async (p, headers, status) => {
    const res = await request(api.baseUrl, p, { headers });
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.toString().endsWith('}\n')).toBe(true);
    expect(res.headers['content-length']).toBe(String(res.body.length));
    expect(() => res.json()).not.toThrow();
  });

  it.each(['/viewer/', '/reference/', '/', '/viewer/app.js'])(
    'a page over the socket: POST %s is the 405 record with Allow, OPTIONS its 204',
    async (p) => {
      const refused = await request(api.baseUrl, p, { method: 'POST', headers: auth() });
      expect(refused.status).toBe(405);
      expect(refused.headers.allow).toBe('GET, HEAD, OPTIONS');
      expect(refused.json()).toEqual({ error: { code: 405, message: 'Method Not Allowed' } });
      expect(refused.headers['x-content-type-options']).toBe('nosniff');
      const options = await request(api.baseUrl, p, { method: 'OPTIONS' });
      expect(options.status).toBe(204);
      expect(options.headers.allow).toBe('GET, HEAD, OPTIONS');
    },
  );

  it('a 405 with its Allow header, and the admin port', async () => {
    const refused = await request(api.baseUrl, '/status.json', { method: 'POST', headers: auth() });
    expect(refused.status).toBe(405);
    expect(refused.body.toString().endsWith('}\n')).toBe(true);
    const admin = `http://127.0.0.1:${api.replica.adminPort}`;
    for (const p of ['/readyz', '/healthz', '/usage', '/nope']) {
      const res = await request(admin, p);
      expect([p, res.headers['content-type']]).toEqual([p, 'application/json']);
      expect([p, res.body.toString().endsWith('\n')]).toEqual([p, true]);
    }
  });
});
