/** Rate limiting in-process through the core: headers on every counted response, 429 + Retry-After. */
import { auth, KEYS, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';
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
  const first = await api.inject(`/tiles/${TS}.pmtiles`, {
    headers: { ...headers, Range: 'bytes=0-9' },
  });
  const second = await api.inject('/tiles/202001010000.pmtiles', { headers });
  const third = await api.inject('/tiles/nope.pmtiles', { headers });
  expect([first.status, second.status, third.status]).toEqual([206, 404, 400]);
  expect([first, second, third].map((r) => r.headers['x-ratelimit-remaining'])).toEqual([
    '2',
    '1',
    '0',
  ]);
  for (const r of [first, second, third]) expect(r.headers['x-ratelimit-limit']).toBe('3');

  const limited = await api.inject('/status.json', { headers });
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
  const again = await api.inject(`/tiles/${TS}.pmtiles`, { headers });
  expect(again.status).toBe(429);
  expect(Number(again.headers['x-ratelimit-reset'])).toBe(reset);
});

it('keeps limits per key: another key is unaffected', async () => {
  const res = await api.inject('/status.json', { headers: auth(KEYS.good) });
  expect(res.status).toBe(200);
  expect(res.headers['x-ratelimit-limit']).toBe('1000');
});

it('does not charge preflights, 401 or 403', async () => {
  const probe = async () =>
    Number(
      (await api.inject('/status.json', { headers: auth(KEYS.good) })).headers[
        'x-ratelimit-remaining'
      ],
    );
  const before = await probe();
  await api.inject('/status.json', {
    method: 'OPTIONS',
    headers: { Origin: 'https://maps.example', 'Access-Control-Request-Method': 'GET' },
  });
  await api.inject('/status.json', { headers: auth('rk_wrong') });
  await api.inject('/status.json', { headers: auth(KEYS.good, 'acme-mobile') });
  // A known key with an app nobody registered: 401, and the key's quota is untouched.
  const unknownApp = await api.inject('/status.json', {
    headers: auth(KEYS.good, 'no-such-app'),
  });
  expect(unknownApp.status).toBe(401);
  expect(unknownApp.headers['x-ratelimit-remaining']).toBeUndefined();
  expect(await probe()).toBe(before - 1);
});
