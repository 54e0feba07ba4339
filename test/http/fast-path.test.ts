/**
 * The fast path (src/http/fast-path.ts) against the Koa pipeline it stands in for: two
 * replicas over the same archive and keys, one with `RADAR_FAST_PATH=0`, get the same request
 * sequence and must give the same status, headers and bytes (only `Date`, generated request
 * ids, the reset second and, where the quota is shared, the remaining count may differ). Run in
 * embedded mode (the memory limiter answers with a promise: the fast path's asynchronous
 * branch) and in production mode (Redis, S3, leased limits deciding synchronously: the branch
 * production traffic takes). Each fast replica's metric shows the fast path really answered,
 * and each Koa replica's that it never did.
 */
import { APPS, auth, KEYS, startEmbeddedApi } from '../harness/embedded-api';
import { request, type RawResponse } from '../harness/http-client';
import { STACK_KEYS, stackAuth, startProductionStack } from '../harness/production-stack';
import { recentTimestamp } from '../harness/timestamps';
import { buildArchive } from '../fixtures/archives';

jest.setTimeout(60_000);

const TS = recentTimestamp(3);
const archive = buildArchive(TS, 4);
const ARCHIVE = `/tiles/${TS}.pmtiles`;

type Headers = Record<string, string>;

/** Two replicas of one setup: `fast` with the fast path, `koa` without. */
interface ReplicaPair {
  readonly fast: { readonly baseUrl: string; readonly adminPort: number };
  readonly koa: { readonly baseUrl: string; readonly adminPort: number };
  /** Credentials of a key: `good`, `limited` (a small limit) or `disabled`/unknown. */
  readonly credentials: (key: 'good' | 'limited' | 'refused') => Headers;
  /** Requests of the limited key until both replicas refuse it. */
  readonly limitedRequests: number;
  /** The quota is one Redis counter for both replicas (remaining counts differ). */
  readonly sharedQuota: boolean;
  stop(): Promise<unknown>;
}

async function embeddedPair(corsOrigins: string[]): Promise<ReplicaPair> {
  const [fast, koa] = await Promise.all([
    startEmbeddedApi({ corsOrigins }),
    startEmbeddedApi({ corsOrigins, env: { RADAR_FAST_PATH: '0' } }),
  ]);
  for (const api of [fast, koa]) {
    await api.publish(TS, archive);
    await api.waitForListed(TS);
  }
  const endpoint = (api: typeof fast) => ({
    baseUrl: api.baseUrl,
    adminPort: api.replica.adminPort,
  });
  const keys = { good: KEYS.good, limited: KEYS.limited, refused: KEYS.disabled };
  return {
    fast: endpoint(fast),
    koa: endpoint(koa),
    credentials: (key) => auth(keys[key], APPS.web),
    limitedRequests: 4, // limit 3 per replica
    sharedQuota: false,
    stop: () => Promise.all([fast.stop(), koa.stop()]),
  };
}

async function productionPair(): Promise<ReplicaPair> {
  const stack = await startProductionStack({
    replicas: 2,
    env: { RADAR_CORS_ORIGINS: '*' },
    replicaEnv: [{}, { RADAR_FAST_PATH: '0' }],
  });
  await stack.publish(TS, archive);
  const [fast, koa] = stack.replicas.map((r) => ({
    baseUrl: `http://127.0.0.1:${r.port}`,
    adminPort: r.adminPort,
  }));
  const keys = { good: STACK_KEYS.good, limited: STACK_KEYS.ten, refused: 'rk_unknown-key' };
  return {
    fast: fast!,
    koa: koa!,
    credentials: (key) => stackAuth(keys[key]),
    limitedRequests: 6, // limit 10 shared: 5 each, then both refuse
    sharedQuota: true,
    stop: () => stack.stop(),
  };
}

interface Case {
  readonly name: string;
  readonly path: string;
  readonly method?: string;
  readonly key?: 'good' | 'limited' | 'refused';
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
  { name: 'refused key', path: ARCHIVE, key: 'refused' },
];

/** The limited key until both paths refuse it (429). */
const limitedCases = (count: number): Case[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `limited key, request ${i + 1}`,
    path: ARCHIVE,
    key: 'limited',
    headers: () => ({ Range: 'bytes=0-1023' }),
  }));

/** The headers both paths must agree on (values that legitimately differ are masked). */
function comparable(res: RawResponse, sentRequestId: boolean, sharedQuota: boolean): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (name === 'date') continue;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    const numeric = /^[0-9]+$/.test(text);
    if (name === 'x-request-id' && !sentRequestId)
      out[name] = /^[0-9a-f-]{36}$/.test(text) ? 'uuid' : text;
    else if (name === 'x-ratelimit-reset') out[name] = numeric ? 'seconds' : text;
    else if (name === 'x-ratelimit-remaining' && sharedQuota) out[name] = numeric ? 'n' : text;
    else out[name] = text;
  }
  return out;
}

async function fastPathResponses(adminPort: number): Promise<number> {
  const text = (await request(`http://127.0.0.1:${adminPort}`, '/metrics')).body.toString();
  const line = /^radar_http_fast_path_responses_total (\d+)/m.exec(text);
  if (!line) throw new Error('radar_http_fast_path_responses_total is not exported');
  return Number(line[1]);
}

describe.each([
  ['embedded, any origin', () => embeddedPair(['*'])],
  ['embedded, listed origins', () => embeddedPair(['https://maps.example'])],
  ['production (Redis, S3, leased limits)', productionPair],
])('fast path and Koa pipeline give the same answers (%s)', (_label, start) => {
  let pair: ReplicaPair;
  beforeAll(async () => {
    pair = await start();
  });
  afterAll(() => pair?.stop());

  it('for every case, in order', async () => {
    const get = (baseUrl: string, c: Omit<Case, 'name'>, headers: Headers) =>
      request(baseUrl, c.path, {
        method: c.method ?? 'GET',
        headers: { ...pair.credentials(c.key ?? 'good'), ...headers },
      });
    const etags = {
      status: String((await get(pair.koa.baseUrl, { path: '/status.json' }, {})).headers.etag),
      archive: String(
        (await get(pair.koa.baseUrl, { path: ARCHIVE }, { Range: 'bytes=0-0' })).headers.etag,
      ),
    };
    // Same state on both: one status and one range request each.
    await get(pair.fast.baseUrl, { path: '/status.json' }, {});
    await get(pair.fast.baseUrl, { path: ARCHIVE }, { Range: 'bytes=0-0' });
    const fastBefore = await fastPathResponses(pair.fast.adminPort);

    let lastStatus = 0;
    for (const c of [...CASES, ...limitedCases(pair.limitedRequests)]) {
      const headers = c.headers?.(etags) ?? {};
      const a = await get(pair.fast.baseUrl, c, headers);
      const b = await get(pair.koa.baseUrl, c, headers);
      lastStatus = a.status;
      const sentId = 'X-Request-Id' in headers;
      expect({
        case: c.name,
        status: a.status,
        headers: comparable(a, sentId, pair.sharedQuota),
      }).toEqual({
        case: c.name,
        status: b.status,
        headers: comparable(b, sentId, pair.sharedQuota),
      });
      expect({ case: c.name, sameBytes: a.body.equals(b.body) }).toEqual({
        case: c.name,
        sameBytes: true,
      });
    }

    expect(lastStatus).toBe(429); // the limited key ran out on both paths
    // The fast path answered the warm reads, status requests and HEADs; Koa never used it.
    expect(await fastPathResponses(pair.fast.adminPort)).toBeGreaterThanOrEqual(fastBefore + 10);
    expect(await fastPathResponses(pair.koa.adminPort)).toBe(0);
  });
});

it('a fault inside the fast path is answered by the Koa app, not a crash', async () => {
  let armed = false;
  const api = await startEmbeddedApi({
    decoratePorts: (ports) => ({
      ...ports,
      store: {
        ...ports.store,
        openRange: (...args) => ports.store.openRange(...args),
        probe: () => ports.store.probe(),
        close: () => ports.store.close(),
        // The fast path's read (the first once armed) throws, as a faulty adapter might.
        readCached: (meta, window) => {
          if (armed) {
            armed = false;
            throw new Error('injected fault in readCached');
          }
          return ports.store.readCached?.(meta, window);
        },
      },
    }),
  });
  try {
    await api.publish(TS, archive);
    await api.waitForListed(TS);
    const get = () =>
      request(api.baseUrl, ARCHIVE, { headers: { ...auth(), Range: 'bytes=0-1023' } });
    expect((await get()).status).toBe(206); // fills the block cache
    armed = true;
    const res = await get();
    expect(armed).toBe(false); // the fault was hit
    expect(res.status).toBe(206);
    expect(res.body.equals(archive.subarray(0, 1024))).toBe(true);
    expect((await get()).status).toBe(206); // still serving
  } finally {
    await api.stop();
  }
});
