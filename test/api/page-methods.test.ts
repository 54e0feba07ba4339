/**
 * The pages (the viewer, the reference, `/`) are routes of the one table, so the core decides
 * their 405, `Allow`, OPTIONS and CORS preflight exactly as an API route's, in-process with no
 * Koa app: a method other than GET or HEAD never reaches the page server.
 */
import { buildArchive } from '../fixtures/archives';
import { auth, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';

const TS = '202611221400';
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApiWith(TS, buildArchive(TS));
});
afterAll(() => api.stop());

const PAGES: ReadonlyArray<readonly [string, string]> = [
  ['/', '/'],
  ['/viewer', '/viewer'],
  ['/viewer/', '/viewer/'],
  ['/viewer/config.json', '/viewer/config.json'],
  ['/viewer/app.js', '/viewer/:asset'],
  ['/VIEWER/', '/viewer/'],
  ['/reference', '/reference'],
  ['/reference/', '/reference/'],
];

it.each(PAGES)(
  'POST, PUT and DELETE %s: the 405 record with Allow, labelled %s',
  async (p, route) => {
    for (const method of ['POST', 'PUT', 'DELETE'])
      for (const headers of [{}, auth()]) {
        const res = await api.inject(p, { method, headers });
        expect([method, res.status]).toEqual([method, 405]);
        expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.json()).toEqual({ error: { code: 405, message: 'Method Not Allowed' } });
        expect(res.answer.route).toBe(route);
      }
  },
);

it.each(PAGES)('OPTIONS %s: 204 with Allow, labelled %s', async (p, route) => {
  const res = await api.inject(p, { method: 'OPTIONS' });
  expect(res.status).toBe(204);
  expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  expect(res.body.length).toBe(0);
  expect(res.answer.route).toBe(route);
});

it("a CORS preflight of a page is the core's, as for an API route", async () => {
  const res = await api.inject('/viewer/', {
    method: 'OPTIONS',
    headers: { Origin: 'https://a.example', 'Access-Control-Request-Method': 'GET' },
  });
  expect(res.status).toBe(204);
  expect(res.headers['access-control-allow-methods']).toMatch(/\bGET\b/);
  expect(res.answer.route).toBe('/viewer/');
});

it.each(['GET', 'HEAD'])('%s of a page leaves the core for the Koa app', async (method) => {
  await expect(api.inject('/viewer/', { method })).rejects.toThrow(/a page/);
});
