/**
 * `X-RateLimit-Reset` is when the window ends, rounded up: a client that waits for the
 * announced second after a 429 (and not a moment less) is served again. Embedded mode (the
 * in-memory limiter); the Redis limiter has the same test in
 * test/stack/redis-rate-windows.test.ts.
 */
import { auth, KEYS, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';

let api: EmbeddedApi;
beforeAll(async () => {
  api = await startEmbeddedApi({ windowS: 2 });
});
afterAll(() => api.stop());

it('a request sent at the announced Reset second of an exhausted key is allowed', async () => {
  const headers = auth(KEYS.limited); // limit 3
  // A valid timestamp that is not published: 404 when allowed, 429 when not.
  const get = () => api.inject('/tiles/200001010000.pmtiles', { headers });
  const statuses = [];
  for (let i = 0; i < 3; i += 1) statuses.push((await get()).status);
  expect(statuses).toEqual([404, 404, 404]);
  const refused = await get();
  expect(refused.status).toBe(429);
  const reset = Number(refused.headers['x-ratelimit-reset']);
  expect(reset).toBeGreaterThan(Date.now() / 1000);
  // At the announced second, not before it.
  await new Promise((r) => setTimeout(r, Math.max(0, reset * 1000 - Date.now())));
  const again = await get();
  expect(again.status).toBe(404);
  expect(again.headers['x-ratelimit-remaining']).toBe('2');
});
