/** `/status.json` in-process through the core: shape, ordering, ETag/304, 503 before data, HEAD. */
import { auth, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { buildArchive } from '../fixtures/archives';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { recentTimestamp, recentTimestamps } from '../harness/timestamps';

let api: EmbeddedApi;
beforeAll(async () => {
  api = await startEmbeddedApi();
});
afterAll(() => api.stop());

const now = Date.now();
const recent = recentTimestamps(3, 0, now);

it('answers 503 with the error record and rate-limit headers while nothing is published', async () => {
  const res = await api.inject('/status.json', { headers: auth() });
  expect(res.status).toBe(503);
  expect(res.json()).toEqual({ error: { code: 503, message: 'Service Unavailable' } });
  expect(res.headers['x-ratelimit-limit']).toBeDefined();
});

describe('with archives published', () => {
  beforeAll(async () => {
    // Published oldest first; the list must still come back newest first.
    for (const ts of [...recent].reverse()) {
      await api.publish(ts, buildArchive(ts, 1));
      await api.waitForListed(ts);
    }
  });

  it('returns exactly healthy, latest, timestamps (newest first) and forecasts', async () => {
    const res = await api.inject('/status.json', { headers: auth() });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const body = res.json<Record<string, unknown>>();
    expect(Object.keys(body).sort()).toEqual(['forecasts', 'healthy', 'latest', 'timestamps']);
    expect(body.timestamps).toEqual(recent);
    expect(body.latest).toBe(recent[0]);
    expect(body.healthy).toBe(true);
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
  });

  it('sends a strong ETag and answers 304 to If-None-Match', async () => {
    const first = await api.inject('/status.json', { headers: auth() });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    const second = await api.inject('/status.json', {
      headers: { ...auth(), 'If-None-Match': etag },
    });
    expect(second.status).toBe(304);
    expect(second.body.length).toBe(0);
    expect(second.headers.etag).toBe(etag);
    expect(second.headers['x-ratelimit-remaining']).toBeDefined();
    const weak = await api.inject('/status.json', {
      headers: { ...auth(), 'If-None-Match': `W/${etag}` },
    });
    expect(weak.status).toBe(304);
    const other = await api.inject('/status.json', {
      headers: { ...auth(), 'If-None-Match': '"x"' },
    });
    expect(other.status).toBe(200);
  });

  it('changes the ETag when a new timestamp is published', async () => {
    const before = (await api.inject('/status.json', { headers: auth() })).headers.etag;
    const next = recentTimestamp(-1, now);
    await api.publish(next, buildArchive(next, 1));
    await api.waitForListed(next);
    const after = await api.inject('/status.json', { headers: auth() });
    expect(after.headers.etag).not.toBe(before);
    expect(after.json<{ latest: string }>().latest).toBe(next);
  });

  it('negotiates br, gzip or identity: each decodes to the same document, with its own strong ETag', async () => {
    const get = (acceptEncoding?: string, extra: Record<string, string> = {}) =>
      api.inject('/status.json', {
        headers: {
          ...auth(),
          ...(acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding }),
          ...extra,
        },
      });
    const plain = await get();
    const gzip = await get('gzip');
    const br = await get('gzip, deflate, br');
    const refusedBr = await get('br;q=0, gzip;q=0.5');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(br.headers['content-encoding']).toBe('br');
    expect(refusedBr.headers['content-encoding']).toBe('gzip');
    for (const res of [plain, gzip, br]) {
      expect(res.status).toBe(200);
      expect(res.headers.vary).toMatch(/Accept-Encoding/i);
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
      expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    }
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(new Set([plain, gzip, br].map((r) => r.headers.etag)).size).toBe(3);
    // The same bytes again (prepared once per version), and any variant's tag revalidates.
    expect((await get('br')).body.equals(br.body)).toBe(true);
    const revalidated = await get('gzip', { 'If-None-Match': plain.headers.etag as string });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe(gzip.headers.etag);
    expect(revalidated.headers.vary).toMatch(/Accept-Encoding/i);
  });

  it('answers HEAD with the same headers and no body', async () => {
    const get = await api.inject('/status.json', { headers: auth() });
    const head = await api.inject('/status.json', { method: 'HEAD', headers: auth() });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers.etag).toBe(get.headers.etag);
  });
});

describe('health', () => {
  it('is false when the newest archive is older than the staleness bound', async () => {
    const stale = await startEmbeddedApi({ staleAfterS: 60 });
    try {
      const old = recentTimestamp(30, now);
      await stale.publish(old, buildArchive(old, 1));
      await stale.waitForListed(old);
      const res = await stale.inject('/status.json', { headers: auth() });
      expect(res.json<{ healthy: boolean; latest: string }>()).toMatchObject({
        healthy: false,
        latest: old,
      });
    } finally {
      await stale.stop();
    }
  });
});
