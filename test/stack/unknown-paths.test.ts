/**
 * Paths that are no API route get the server's final 404 with the error record, with or
 * without credentials: matching is exact (case, trailing slash), so near misses of the API's
 * paths are unknown too.
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
