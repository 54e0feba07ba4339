/**
 * The pages (the viewer's files, the API reference) follow the same precondition rules as the
 * API (RFC 9110 §13.2.2, one evaluator): `If-Match` that fails is a 412 with the error record,
 * `If-Unmodified-Since` before the page's date likewise, `If-None-Match` with the current tag a
 * 304, and `If-Modified-Since` counts only as an HTTP-date (an ISO-8601 date is ignored, never
 * a 304).
 */
import { startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { request } from '../harness/http-client';

let api: EmbeddedApi;
beforeAll(async () => {
  api = await startEmbeddedApi();
});
afterAll(() => api?.stop());

const get = (path: string, headers: Record<string, string> = {}) =>
  request(api.baseUrl, path, { headers });

describe.each([['/viewer/'], ['/reference/']])('%s', (page) => {
  it('If-Match: 412 with the error record unless it names the current tag', async () => {
    const plain = await get(page);
    expect(plain.status).toBe(200);
    const etag = String(plain.headers.etag);
    const failed = await get(page, { 'If-Match': '"something-else"' });
    expect(failed.status).toBe(412);
    expect(failed.json()).toEqual({ error: { code: 412, message: 'Precondition Failed' } });
    expect((await get(page, { 'If-Match': etag })).status).toBe(200);
    expect((await get(page, { 'If-Match': '*' })).status).toBe(200);
    expect((await get(page, { 'If-None-Match': etag })).status).toBe(304);
  });
});

describe('/viewer/ dates', () => {
  it('If-Unmodified-Since before the file: 412; If-Modified-Since only as an HTTP-date', async () => {
    const plain = await get('/viewer/');
    const modified = new Date(String(plain.headers['last-modified']));
    const before = new Date(modified.getTime() - 86_400_000).toUTCString();
    const after = new Date(modified.getTime() + 86_400_000);
    expect((await get('/viewer/', { 'If-Unmodified-Since': before })).status).toBe(412);
    expect((await get('/viewer/', { 'If-Unmodified-Since': after.toUTCString() })).status).toBe(
      200,
    );
    expect((await get('/viewer/', { 'If-Modified-Since': after.toUTCString() })).status).toBe(304);
    // An ISO-8601 date is no HTTP-date: ignored, the page is sent.
    expect((await get('/viewer/', { 'If-Modified-Since': after.toISOString() })).status).toBe(200);
  });
});
