/**
 * Rate limiting as the client sees it, against the running service: the quota state, a 429
 * waited out until the window really reopens, and the bounds (retries, longest wait) that
 * make the client give up instead of hanging.
 */
import { RadarApiError, RadarRateLimitError } from '../../../src/client/errors';
import type { RateLimitState } from '../../../src/client/rate-limit';
import { createRadarTransport } from '../../../src/client/transport';
import { buildArchive } from '../../fixtures/archives';
import { APPS, KEYS } from '../../harness/embedded-api';
import { startViewerApi, type ViewerApi } from '../../harness/browser-api';
import { recordingFetch } from '../../harness/recording-fetch';
import { reportFigure, settleWithin } from '../../harness/wait';

const TS = '202611221400';
const SHORT_WINDOW_S = 2;
const limited = { apiKey: KEYS.limited, appId: APPS.web }; // 3 requests per window
let shortWindow: ViewerApi; // 2 s windows: four sequential requests fit in one even on a loaded machine
let longWindow: ViewerApi; // 60 s windows

/** Waits until the limited key's short window has certainly ended. */
function freshShortWindow(): Promise<void> {
  return new Promise((r) => setTimeout(r, SHORT_WINDOW_S * 1000 + 100));
}

beforeAll(async () => {
  [shortWindow, longWindow] = await Promise.all([
    startViewerApi({ windowS: SHORT_WINDOW_S }),
    startViewerApi({ windowS: 60 }),
  ]);
  for (const api of [shortWindow, longWindow]) {
    await api.publish(TS, buildArchive(TS, 1));
    await api.waitForAllListed([TS]);
  }
});
afterAll(async () => {
  await shortWindow.stop();
  await longWindow.stop();
});

it('exposes the quota of the last response and tells listeners', async () => {
  const transport = createRadarTransport({
    baseUrl: longWindow.baseUrl,
    credentials: { apiKey: KEYS.good, appId: APPS.web },
  });
  const seen: RateLimitState[] = [];
  transport.onRateLimit((state) => seen.push(state));
  expect(transport.rateLimit()).toBeUndefined();
  await transport.get('/status.json');
  await transport.get(`/tiles/${TS}.pmtiles`, { headers: { Range: 'bytes=0-9' } });
  expect(seen).toHaveLength(2);
  expect(seen[1]!.remaining).toBe(seen[0]!.remaining - 1);
  expect(transport.rateLimit()).toEqual({
    limit: 1000,
    remaining: seen[1]!.remaining,
    resetAtMs: expect.any(Number),
    observedAtMs: expect.any(Number),
  });
  expect(transport.rateLimit()!.resetAtMs).toBeGreaterThan(Date.now());
});

it('waits out a 429 for Retry-After and then succeeds (real 2 s window)', async () => {
  const recorder = recordingFetch();
  const transport = createRadarTransport({
    baseUrl: shortWindow.baseUrl,
    credentials: limited,
    fetch: recorder.fetch,
  });
  const blocked: number[] = [];
  transport.onRateLimit((s) => {
    if (s.blockedUntilMs !== undefined) blocked.push(s.blockedUntilMs);
  });
  const started = Date.now();
  for (let i = 0; i < 5; i++) {
    const response = await transport.get('/status.json');
    expect(response.status).toBe(200);
  }
  expect(recorder.requests.map((r) => r.status)).toContain(429);
  expect(blocked.length).toBeGreaterThanOrEqual(1);
  expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  // The success after the wait ends the hold.
  expect(transport.rateLimit()?.blockedUntilMs).toBeUndefined();
});

it('holds concurrent requests after a 429 instead of letting each collect its own', async () => {
  await freshShortWindow();
  const recorder = recordingFetch();
  const transport = createRadarTransport({
    baseUrl: shortWindow.baseUrl,
    credentials: limited,
    fetch: recorder.fetch,
  });
  for (let i = 0; i < 3; i++) await transport.get('/status.json');
  const held = new Promise<void>((resolve) => {
    const off = transport.onRateLimit((s) => {
      if (s.blockedUntilMs !== undefined) {
        off();
        resolve();
      }
    });
  });
  const first = transport.get('/status.json');
  // Bounded: if the window rolled over, no 429 comes and the test says so instead of hanging.
  await settleWithin(held, 10_000, () => {
    throw new Error('no 429 within the window');
  });
  const responses = await Promise.all([
    first,
    transport.get('/status.json'),
    transport.get('/status.json'),
  ]);
  expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
  // One 429 only: the two later requests waited for the window instead of collecting their own.
  expect(recorder.requests.map((r) => r.status)).toEqual([200, 200, 200, 429, 200, 200, 200]);
});

it('gives up at once when the service asks for a longer wait than maxWaitMs, without more requests', async () => {
  const recorder = recordingFetch();
  const transport = createRadarTransport({
    baseUrl: longWindow.baseUrl,
    credentials: limited,
    fetch: recorder.fetch,
    maxWaitMs: 2_000,
  });
  const errors: RadarApiError[] = [];
  transport.onError((e) => errors.push(e));
  for (let i = 0; i < 3; i++) await transport.get('/status.json');
  const started = Date.now();
  const error = (await transport
    .get('/status.json')
    .catch((e: unknown) => e)) as RadarRateLimitError;
  expect(error).toBeInstanceOf(RadarRateLimitError);
  expect(error.status).toBe(429);
  expect(error.retryAtMs).toBeGreaterThan(Date.now() + 2_000);
  // Refused without sleeping: waiting would take past retryAtMs, over 2 s from now.
  const refusedMs = Date.now() - started;
  reportFigure('429 beyond maxWaitMs refused after', refusedMs);
  expect(refusedMs).toBeLessThan(2_000);
  expect(transport.rateLimit()).toMatchObject({ remaining: 0, blockedUntilMs: error.retryAtMs });
  const count = recorder.requests.length;
  // While held back, further requests fail without reaching the service.
  await expect(transport.get('/status.json')).rejects.toBeInstanceOf(RadarRateLimitError);
  expect(recorder.requests).toHaveLength(count);
  expect(errors).toHaveLength(2);
});

it('maxRetries 0 reports the first 429', async () => {
  await freshShortWindow();
  const transport = createRadarTransport({
    baseUrl: shortWindow.baseUrl,
    credentials: limited,
    maxRetries: 0,
  });
  for (let i = 0; i < 3; i++) await transport.get('/status.json');
  await expect(transport.get('/status.json')).rejects.toBeInstanceOf(RadarRateLimitError);
});

it('an abort signal ends a wait for the rate limit', async () => {
  await freshShortWindow();
  const transport = createRadarTransport({ baseUrl: shortWindow.baseUrl, credentials: limited });
  for (let i = 0; i < 3; i++) await transport.get('/status.json');
  const controller = new AbortController();
  const pending = transport.get('/status.json', { signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await expect(pending).rejects.toHaveProperty('name', 'AbortError');
});

it('stale quota headers (a browser-cached range) neither raise remaining nor end a 429 hold', async () => {
  const api = await startViewerApi({ windowS: 60 });
  try {
    // A cache in front of the real fetch, as the browser's HTTP cache serves immutable ranges;
    // a cached answer arrives 150 ms late, so it lands after a 429 raised meanwhile.
    const cache = new Map<string, Response>();
    const cachingFetch: typeof fetch = async (input, init) => {
      const range = new Headers(init?.headers).get('Range');
      const cached = range ? cache.get(range) : undefined;
      if (cached) {
        await new Promise((r) => setTimeout(r, 150));
        return cached.clone();
      }
      const response = await fetch(input, init);
      if (range && response.status === 206) cache.set(range, response.clone());
      return response;
    };
    await api.publish(TS, buildArchive(TS, 1));
    await api.waitForAllListed([TS]);
    const transport = createRadarTransport({
      baseUrl: api.baseUrl,
      credentials: limited,
      fetch: cachingFetch,
      maxWaitMs: 1_000,
    });
    const range = { headers: { Range: 'bytes=0-9' } };
    await transport.get(`/tiles/${TS}.pmtiles`, range);
    expect(transport.rateLimit()?.remaining).toBe(2);
    await transport.get('/status.json');
    await transport.get('/status.json');
    expect(transport.rateLimit()?.remaining).toBe(0);
    const late = transport.get(`/tiles/${TS}.pmtiles`, range); // cached: says remaining 2
    await expect(transport.get('/status.json')).rejects.toBeInstanceOf(RadarRateLimitError);
    const held = transport.rateLimit()!;
    expect(held.blockedUntilMs).toBeGreaterThan(Date.now());
    await expect(late).resolves.toHaveProperty('status', 206);
    expect(transport.rateLimit()).toEqual(held);
  } finally {
    await api.stop();
  }
});
