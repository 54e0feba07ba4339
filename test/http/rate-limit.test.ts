/** Rate limiting over a real socket: headers on every counted response, 429 + Retry-After. */
import { auth, KEYS, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { buildArchive } from '../fixtures/archives';

const TS = '202611221400';
let api: EmbeddedApi;
beforeAll(async () => {
  api = await startEmbeddedApiWith(TS, buildArchive(TS, 1));
});
afterAll(() => api.stop());

it('counts every authorised request, whatever its outcome, and answers 429 past the limit', async () => {
  const headers = auth(KEYS.limited);
  // limit 3: a 200, a 404 and a 400 each cost one point.
  const first = await request(api.baseUrl, `/tiles/${TS}.pmtiles`, {
    headers: { ...headers, Range: 'bytes=0-9' },
  });
  const second = await request(api.baseUrl, '/tiles/202001010000.pmtiles', { headers });
  const third = await request(api.baseUrl, '/tiles/nope.pmtiles', { headers });
  expect([first.status, second.status, third.status]).toEqual([206, 404, 400]);
  expect([first, second, third].map((r) => r.headers['x-ratelimit-remaining'])).toEqual([
    '2',
    '1',
    '0',
  ]);
  for (const r of [first, second, third]) expect(r.headers['x-ratelimit-limit']).toBe('3');

  const limited = await request(api.baseUrl, '/status.json', { headers });
  expect(limited.status).toBe(429);
  expect(limited.json()).toEqual({ error: { code: 429, message: 'Too Many Requests' } });
  expect(limited.headers['x-ratelimit-limit']).toBe('3');
  expect(limited.headers['x-ratelimit-remaining']).toBe('0');
  const reset = Number(limited.headers['x-ratelimit-reset']);
  const nowS = Date.now() / 1000;
  expect(reset).toBeGreaterThan(nowS);
  expect(reset).toBeLessThanOrEqual(Math.ceil(nowS) + 60);
  const retryAfter = Number(limited.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  // The window is fixed: the reset does not move while the key keeps trying.
  const again = await request(api.baseUrl, `/tiles/${TS}.pmtiles`, { headers });
  expect(again.status).toBe(429);
  expect(Number(again.headers['x-ratelimit-reset'])).toBe(reset);
});

it('keeps limits per key: another key is unaffected', async () => {
  const res = await request(api.baseUrl, '/status.json', { headers: auth(KEYS.good) });
  expect(res.status).toBe(200);
  expect(res.headers['x-ratelimit-limit']).toBe('1000');
});

it('does not charge preflights, 401 or 403', async () => {
  const probe = async () =>
    Number(
      (await request(api.baseUrl, '/status.json', { headers: auth(KEYS.good) })).headers[
        'x-ratelimit-remaining'
      ],
    );
  const before = await probe();
  await request(api.baseUrl, '/status.json', {
    method: 'OPTIONS',
    headers: { Origin: 'https://maps.example', 'Access-Control-Request-Method': 'GET' },
  });
  await request(api.baseUrl, '/status.json', { headers: auth('rk_wrong') });
  await request(api.baseUrl, '/status.json', { headers: auth(KEYS.good, 'acme-mobile') });
  // A known key with an app nobody registered: 401, and the key's quota is untouched.
  const unknownApp = await request(api.baseUrl, '/status.json', {
    headers: auth(KEYS.good, 'no-such-app'),
  });
  expect(unknownApp.status).toBe(401);
  expect(unknownApp.headers['x-ratelimit-remaining']).toBeUndefined();
  expect(await probe()).toBe(before - 1);
});
