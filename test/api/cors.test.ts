/** CORS for browser map clients: preflight without credentials, exposed headers, origins. */
import { auth, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';

// Written out, not imported from the middleware: a header dropped from the code must fail here.
const ALLOW_HEADERS = 'Authorization,X-App,Range,If-None-Match,If-Range,If-Match';
const EXPOSE_HEADERS =
  'ETag,Content-Range,Content-Length,Accept-Ranges,Last-Modified,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset,Retry-After';

describe('default origins (*)', () => {
  let api: EmbeddedApi;
  beforeAll(async () => {
    api = await startEmbeddedApi();
  });
  afterAll(() => api.stop());

  it('answers a preflight with 204 and no credentials', async () => {
    const res = await api.inject('/tiles/202611221400.pmtiles', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://maps.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization, x-app, range',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-headers']).toBe(ALLOW_HEADERS);
    expect(res.headers['access-control-allow-methods']).toBe('GET,HEAD,OPTIONS');
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('exposes the headers a PMTiles client needs, also on errors', async () => {
    for (const headers of [auth(), {}]) {
      const res = await api.inject('/status.json', {
        headers: { ...headers, Origin: 'https://maps.example' },
      });
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-expose-headers']).toBe(EXPOSE_HEADERS);
    }
  });
});

describe('explicit origins', () => {
  let api: EmbeddedApi;
  beforeAll(async () => {
    api = await startEmbeddedApi({ corsOrigins: ['https://a.example', 'https://b.example'] });
  });
  afterAll(() => api.stop());

  it('echoes an allowed origin with Vary: Origin', async () => {
    const res = await api.inject('/status.json', {
      headers: { Origin: 'https://b.example' },
    });
    expect(res.headers['access-control-allow-origin']).toBe('https://b.example');
    expect(res.headers.vary).toMatch(/Origin/);
  });
  it('sends no CORS headers to other origins', async () => {
    const res = await api.inject('/status.json', {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
