/**
 * The fast path (src/http/fast-path.ts) against the Koa pipeline it stands in for: two
 * embedded replicas over the same archive and keys, one with `RADAR_FAST_PATH=0`, get the same
 * request sequence and must give the same status, headers and bytes (only `Date`, generated
 * request ids and the reset second may differ). The fast replica's metric shows the fast path
 * really answered, and the Koa replica's that it never did.
 */
import { APPS, auth, KEYS, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { request, type RawResponse } from '../harness/http-client';
import { buildArchive } from '../fixtures/archives';

const TS = '202611221400';
const archive = buildArchive(TS, 4);
const ARCHIVE = `/tiles/${TS}.pmtiles`;

type Headers = Record<string, string>;
interface Case {
  readonly name: string;
  readonly path: string;
  readonly method?: string;
  readonly headers?: (etags: { status: string; archive: string }) => Headers;
}

const CASES: readonly Case[] = [
  { name: 'status', path: '/status.json' },
  { name: 'status gzip', path: '/status.json', headers: () => ({ 'Accept-Encoding': 'gzip' }) },
  {
    name: 'status br',
    path: '/status.json',
    headers: () => ({ 'Accept-Encoding': 'gzip, deflate, br' }),
  },
  { name: 'status HEAD', path: '/status.json', method: 'HEAD' },
  {
    name: 'status 304',
    path: '/status.json',
    headers: (e) => ({ 'If-None-Match': e.status }),
  },
  {
    name: 'status 304 for the identity tag asked in gzip',
    path: '/status.json',
    headers: (e) => ({ 'If-None-Match': e.status, 'Accept-Encoding': 'gzip' }),
  },
  {
    name: 'status from an allowed origin',
    path: '/status.json',
    headers: () => ({ Origin: 'https://maps.example' }),
  },
  {
    name: 'status from another origin',
    path: '/status.json',
    headers: () => ({ Origin: 'https://elsewhere.example' }),
  },
  {
    name: 'status with a request id',
    path: '/status.json',
    headers: () => ({ 'X-Request-Id': 'abc-1' }),
  },
  // The first read of a window fills the block cache (Koa's store read); repeats are fast.
  { name: 'range, cold', path: ARCHIVE, headers: () => ({ Range: 'bytes=0-1023' }) },
  { name: 'range, warm', path: ARCHIVE, headers: () => ({ Range: 'bytes=0-1023' }) },
  { name: 'suffix range', path: ARCHIVE, headers: () => ({ Range: 'bytes=-100' }) },
  { name: 'open range', path: ARCHIVE, headers: () => ({ Range: 'bytes=1000-' }) },
  { name: 'whole archive', path: ARCHIVE },
  { name: 'whole archive again', path: ARCHIVE },
  { name: 'archive HEAD', path: ARCHIVE, method: 'HEAD', headers: () => ({ Range: 'bytes=0-9' }) },
  { name: 'archive 304', path: ARCHIVE, headers: (e) => ({ 'If-None-Match': e.archive }) },
  {
    name: 'If-Range that matches',
    path: ARCHIVE,
    headers: (e) => ({ Range: 'bytes=0-1023', 'If-Range': e.archive }),
  },
  {
    name: 'If-Range that does not match',
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=0-1023', 'If-Range': '"other"' }),
  },
  {
    name: 'range from an allowed origin',
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=0-1023', Origin: 'https://maps.example' }),
  },
  { name: 'several ranges', path: ARCHIVE, headers: () => ({ Range: 'bytes=0-1,5-9' }) },
  { name: 'unsatisfiable range', path: ARCHIVE, headers: () => ({ Range: 'bytes=99999999-' }) },
  { name: 'If-Match that fails', path: ARCHIVE, headers: () => ({ 'If-Match': '"other"' }) },
  { name: 'unpublished timestamp', path: '/tiles/202001010000.pmtiles' },
  { name: 'invalid timestamp', path: '/tiles/202613011200.pmtiles' },
  { name: 'query string', path: `${ARCHIVE}?v=1`, headers: () => ({ Range: 'bytes=0-1023' }) },
  { name: 'no credentials', path: '/status.json', headers: () => ({ Authorization: '' }) },
  {
    name: 'disabled key',
    path: ARCHIVE,
    headers: () => ({ Authorization: `Bearer ${KEYS.disabled}` }),
  },
  // The limited key has 3 points: the fourth request is refused (429) on both paths.
  ...[1, 2, 3, 4].map((n): Case => ({
    name: `limited key, request ${n}`,
    path: ARCHIVE,
    headers: () => ({ Authorization: `Bearer ${KEYS.limited}`, Range: 'bytes=0-1023' }),
  })),
];

/** The headers both paths must agree on (values that legitimately differ are masked). */
function comparable(res: RawResponse, sentRequestId: boolean): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (name === 'date') continue;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    if (name === 'x-request-id' && !sentRequestId)
      out[name] = /^[0-9a-f-]{36}$/.test(text) ? 'uuid' : text;
    else if (name === 'x-ratelimit-reset') out[name] = /^[0-9]+$/.test(text) ? 'seconds' : text;
    else out[name] = text;
  }
  return out;
}

async function fastPathResponses(api: EmbeddedApi): Promise<number> {
  const text = (
    await request(`http://127.0.0.1:${api.replica.adminPort}`, '/metrics')
  ).body.toString();
  const line = /^radar_http_fast_path_responses_total (\d+)/m.exec(text);
  if (!line) throw new Error('radar_http_fast_path_responses_total is not exported');
  return Number(line[1]);
}

describe.each([
  ['any origin', ['*']],
  ['listed origins', ['https://maps.example']],
])('fast path and Koa pipeline give the same answers (CORS: %s)', (_label, corsOrigins) => {
  let fast: EmbeddedApi;
  let koa: EmbeddedApi;

  beforeAll(async () => {
    [fast, koa] = await Promise.all([
      startEmbeddedApi({ corsOrigins }),
      startEmbeddedApi({ corsOrigins, env: { RADAR_FAST_PATH: '0' } }),
    ]);
    for (const api of [fast, koa]) {
      await api.publish(TS, archive);
      await api.waitForListed(TS);
    }
  });
  afterAll(() => Promise.all([fast?.stop(), koa?.stop()]));

  it('for every case, in order', async () => {
    const get = (api: EmbeddedApi, path: string, headers: Headers = {}, method = 'GET') =>
      request(api.baseUrl, path, { method, headers: { ...auth(KEYS.good, APPS.web), ...headers } });
    const etags = {
      status: String((await get(koa, '/status.json')).headers.etag),
      archive: String((await get(koa, ARCHIVE, { Range: 'bytes=0-0' })).headers.etag),
    };
    // Same state on both: one status and one range request each.
    await get(fast, '/status.json');
    await get(fast, ARCHIVE, { Range: 'bytes=0-0' });
    const fastBefore = await fastPathResponses(fast);

    for (const c of CASES) {
      const headers = c.headers?.(etags) ?? {};
      const [a, b] = [
        await get(fast, c.path, headers, c.method),
        await get(koa, c.path, headers, c.method),
      ];
      const sentId = 'X-Request-Id' in headers;
      expect({ case: c.name, status: a.status, headers: comparable(a, sentId) }).toEqual({
        case: c.name,
        status: b.status,
        headers: comparable(b, sentId),
      });
      expect({ case: c.name, sameBytes: a.body.equals(b.body) }).toEqual({
        case: c.name,
        sameBytes: true,
      });
    }

    // The fast path answered the warm reads, status requests and HEADs; Koa never used it.
    expect(await fastPathResponses(fast)).toBeGreaterThanOrEqual(fastBefore + 10);
    expect(await fastPathResponses(koa)).toBe(0);
  });
});
