/** `/tiles/{timestamp}.pmtiles` in-process through the core: 400/404, ranges, conditionals, HEAD. */
import { auth, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';
import { buildArchive } from '../fixtures/archives';

const TS = '202611221400';
const archive = buildArchive(TS, 4);
const size = archive.length;
const path = `/tiles/${TS}.pmtiles`;
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApiWith(TS, archive);
});
afterAll(() => api.stop());

const get = (headers: Record<string, string> = {}, method = 'GET', p = path) =>
  api.inject(p, { method, headers: { ...auth(), ...headers } });

function expectError(res: Awaited<ReturnType<typeof get>>, code: number, message: string) {
  expect(res.status).toBe(code);
  expect(res.json()).toEqual({ error: { code, message } });
  expect(res.headers['x-ratelimit-limit']).toBeDefined();
}

describe('validation and lookup', () => {
  it.each([
    '2026112214',
    '2026112214000',
    'abcdefghijkl',
    '202613011200',
    '202602301200',
    '202611222400',
    '20261122140a',
  ])('400 for %s', async (ts) =>
    expectError(await get({}, 'GET', `/tiles/${ts}.pmtiles`), 400, 'Bad Request'),
  );
  it.each(['202001010000', '005001010000', '190001010000', '000002290000'])(
    '404 for the valid calendar minute %s, not published (every year read alike)',
    async (ts) => expectError(await get({}, 'GET', `/tiles/${ts}.pmtiles`), 404, 'Not Found'),
  );
});

describe('whole archive', () => {
  it('200 with exact bytes and every archive header', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body.equals(archive)).toBe(true);
    expect(res.headers['content-type']).toBe('application/vnd.pmtiles');
    expect(res.headers['content-length']).toBe(String(size));
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers['last-modified']).toBeDefined();
    expect(res.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
      expect(res.headers[h]).toMatch(/^[0-9]+$/);
    }
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
  });
  it('is never compressed even when asked', async () => {
    const res = await get({ 'Accept-Encoding': 'gzip, br' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.equals(archive)).toBe(true);
  });
  it('HEAD answers the same headers without a body', async () => {
    const res = await get({}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
    expect(res.headers['content-length']).toBe(String(size));
    expect(res.headers['content-type']).toBe('application/vnd.pmtiles');
  });
});

describe('ranges', () => {
  const cases: Array<[string, number, number]> = [
    ['bytes=0-16383', 0, 16383],
    ['bytes=0-0', 0, 0],
    ['bytes=100-199', 100, 199],
    ['bytes=1000-', 1000, size - 1],
    ['bytes=-500', size - 500, size - 1],
    [`bytes=-${size - 1}`, 1, size - 1],
    ['bytes=-1', size - 1, size - 1],
    [`bytes=10-${size + 5000}`, 10, size - 1],
    [`bytes=-${size + 10}`, 0, size - 1],
  ];
  it.each(cases)('%s -> 206 with the exact slice', async (range, start, end) => {
    const res = await get({ Range: range });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.body.equals(archive.subarray(start, end + 1))).toBe(true);
  });
  it('HEAD with a range answers 206 headers without a body', async () => {
    const res = await get({ Range: 'bytes=0-99' }, 'HEAD');
    expect(res.status).toBe(206);
    expect(res.headers['content-length']).toBe('100');
    expect(res.body.length).toBe(0);
  });
  it.each([`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, 'bytes=-0', 'bytes=5-2'])(
    '%s -> 416',
    async (range) => {
      const res = await get({ Range: range });
      expectError(res, 416, 'Range Not Satisfiable');
      expect(res.headers['content-range']).toBe(`bytes */${size}`);
      expect(res.headers.etag).toBeUndefined();
    },
  );
  it.each(['bytes=0-1,5-6', 'bytes=0-10, 20-30', 'items=0-5', 'garbage', 'bytes=a-b'])(
    '%s -> 200 whole archive',
    async (range) => {
      const res = await get({ Range: range });
      expect(res.status).toBe(200);
      expect(res.body.equals(archive)).toBe(true);
    },
  );
});

describe('conditional requests', () => {
  let etag: string;
  let lastModified: string;
  beforeAll(async () => {
    const res = await get({}, 'HEAD');
    etag = res.headers.etag as string;
    lastModified = res.headers['last-modified'] as string;
  });

  it('If-None-Match with the ETag -> 304 without body, with validators and rate-limit headers', async () => {
    const res = await get({ 'If-None-Match': etag });
    expect(res.status).toBe(304);
    expect(res.body.length).toBe(0);
    expect(res.headers.etag).toBe(etag);
    expect(res.headers['x-ratelimit-remaining']).toBeDefined();
  });
  it('If-None-Match with another ETag -> 200', async () => {
    expect((await get({ 'If-None-Match': '"other"' })).status).toBe(200);
  });
  it('If-Match mismatch -> 412; match -> 200', async () => {
    expectError(await get({ 'If-Match': '"other"' }), 412, 'Precondition Failed');
    expect((await get({ 'If-Match': etag })).status).toBe(200);
    expectError(await get({ 'If-Match': `W/${etag}` }), 412, 'Precondition Failed');
  });
  it('If-Range with the current ETag honours the range', async () => {
    const res = await get({ Range: 'bytes=0-9', 'If-Range': etag });
    expect(res.status).toBe(206);
    expect(res.body.equals(archive.subarray(0, 10))).toBe(true);
  });
  it('If-Range with Last-Modified honours the range', async () => {
    expect((await get({ Range: 'bytes=0-9', 'If-Range': lastModified })).status).toBe(206);
  });
  it('If-Range with another validator sends the whole archive', async () => {
    for (const ifRange of ['"stale"', `W/${etag}`, 'Thu, 01 Jan 1970 00:00:00 GMT']) {
      const res = await get({ Range: 'bytes=0-9', 'If-Range': ifRange });
      expect(res.status).toBe(200);
      expect(res.body.length).toBe(size);
    }
  });
  it('If-Modified-Since at Last-Modified -> 304', async () => {
    expect((await get({ 'If-Modified-Since': lastModified })).status).toBe(304);
  });
});

describe('methods', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])(
    '%s -> 405 with Allow, before auth',
    async (method) => {
      const res = await api.inject(path, { method });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
      expect(res.json()).toEqual({ error: { code: 405, message: 'Method Not Allowed' } });
    },
  );
  it('plain OPTIONS -> 204 with Allow', async () => {
    const res = await api.inject(path, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });
});
