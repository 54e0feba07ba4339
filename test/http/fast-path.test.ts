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
import fs from 'node:fs/promises';
import path from 'node:path';
import { APPS, auth, KEYS, startEmbeddedApi } from '../harness/embedded-api';
import { request, type RawResponse } from '../harness/http-client';
import { STACK_KEYS, stackAuth, startProductionStack } from '../harness/production-stack';
import { recentTimestamp } from '../harness/timestamps';
import { sparseArchive } from '../harness/tile-conformance';

jest.setTimeout(60_000);

const TS = recentTimestamp(3);
const archive = sparseArchive(TS); // zooms 0-7, leaf directories, every 7th tile missing
const ARCHIVE = `/tiles/${TS}.pmtiles`;
const ARCHIVE_MTIME = new Date('2026-11-23T10:00:00Z');
/** A tile the archive holds ((x + y + z) % 7 !== 3) and one it does not (the empty PNG). */
const TILE = `/tiles/${TS}/7/10/20.png`;
const EMPTY_TILE = `/tiles/${TS}/7/0/3.png`;

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
  // The same file with the same modification time on both (Last-Modified comes from it).
  const prepare = async (_root: string, dataDir: string) => {
    const file = path.join(dataDir, `${TS}.pmtiles`);
    await fs.writeFile(file, archive);
    await fs.utimes(file, ARCHIVE_MTIME, ARCHIVE_MTIME);
  };
  const [fast, koa] = await Promise.all([
    startEmbeddedApi({ corsOrigins, prepare }),
    startEmbeddedApi({ corsOrigins, prepare, env: { RADAR_FAST_PATH: '0' } }),
  ]);
  for (const api of [fast, koa]) await api.waitForListed(TS);
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
  /** Whether the fast path answers it (undefined: depends on what the cache holds). */
  readonly fast?: boolean;
  readonly headers?: (etags: { status: string; archive: string; tile: string }) => Headers;
}

const CASES: readonly Case[] = [
  { name: 'status', fast: true, path: '/status.json' },
  {
    name: 'status gzip',
    fast: true,
    path: '/status.json',
    headers: () => ({ 'Accept-Encoding': 'gzip' }),
  },
  {
    name: 'status br',
    fast: true,
    path: '/status.json',
    headers: () => ({ 'Accept-Encoding': 'gzip, deflate, br' }),
  },
  { name: 'status HEAD', fast: true, path: '/status.json', method: 'HEAD' },
  {
    name: 'status 304',
    fast: true,
    path: '/status.json',
    headers: (e) => ({ 'If-None-Match': e.status }),
  },
  {
    name: 'status 304 for the identity tag asked in gzip',
    fast: true,
    path: '/status.json',
    headers: (e) => ({ 'If-None-Match': e.status, 'Accept-Encoding': 'gzip' }),
  },
  {
    name: 'status from an allowed origin',
    fast: true,
    path: '/status.json',
    headers: () => ({ Origin: 'https://maps.example' }),
  },
  {
    name: 'status from another origin',
    fast: true,
    path: '/status.json',
    headers: () => ({ Origin: 'https://elsewhere.example' }),
  },
  {
    name: 'status with a request id',
    fast: true,
    path: '/status.json',
    headers: () => ({ 'X-Request-Id': 'abc-1' }),
  },
  // The first read of a window fills the block cache (Koa's store read); repeats are fast.
  // The setup's first read filled the block at offset 0; a window further in is cold once.
  { name: 'range', fast: true, path: ARCHIVE, headers: () => ({ Range: 'bytes=0-1023' }) },
  {
    name: 'range, cold',
    fast: false,
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=600000-601023' }),
  },
  {
    name: 'range, warm',
    fast: true,
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=600000-601023' }),
  },
  { name: 'suffix range', path: ARCHIVE, headers: () => ({ Range: 'bytes=-100' }) },
  { name: 'open range', path: ARCHIVE, headers: () => ({ Range: 'bytes=1000-' }) },
  { name: 'whole archive', fast: false, path: ARCHIVE },
  { name: 'whole archive again', fast: false, path: ARCHIVE },
  {
    name: 'archive HEAD',
    fast: true,
    path: ARCHIVE,
    method: 'HEAD',
    headers: () => ({ Range: 'bytes=0-9' }),
  },
  {
    name: 'archive 304',
    fast: true,
    path: ARCHIVE,
    headers: (e) => ({ 'If-None-Match': e.archive }),
  },
  {
    name: 'If-Range that matches',
    fast: true,
    path: ARCHIVE,
    headers: (e) => ({ Range: 'bytes=0-1023', 'If-Range': e.archive }),
  },
  {
    name: 'If-Range that does not match',
    fast: false,
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=0-1023', 'If-Range': '"other"' }),
  },
  {
    name: 'range from an allowed origin',
    fast: true,
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=0-1023', Origin: 'https://maps.example' }),
  },
  {
    name: 'several ranges',
    fast: false,
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=0-1,5-9' }),
  },
  {
    name: 'unsatisfiable range',
    fast: false,
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=99999999-' }),
  },
  {
    name: 'If-Match that fails',
    fast: false,
    path: ARCHIVE,
    headers: () => ({ 'If-Match': '"other"' }),
  },
  { name: 'unpublished timestamp', fast: false, path: '/tiles/202001010000.pmtiles' },
  { name: 'invalid timestamp', fast: false, path: '/tiles/202613011200.pmtiles' },
  {
    name: 'query string',
    fast: false,
    path: `${ARCHIVE}?v=1`,
    headers: () => ({ Range: 'bytes=0-1023' }),
  },
  // z/x/y tiles: directories in memory (the setup read TILE once), so tiles are fast.
  { name: 'tile', fast: true, path: TILE },
  { name: 'tile HEAD', fast: true, path: TILE, method: 'HEAD' },
  { name: 'tile 304', fast: true, path: TILE, headers: (e) => ({ 'If-None-Match': e.tile }) },
  {
    name: 'tile from an allowed origin',
    fast: true,
    path: TILE,
    headers: () => ({ Origin: 'https://maps.example' }),
  },
  { name: 'empty tile, cold', path: EMPTY_TILE },
  { name: 'empty tile, warm', fast: true, path: EMPTY_TILE },
  { name: 'empty tile HEAD', fast: true, path: EMPTY_TILE, method: 'HEAD' },
  { name: 'tile past the zoom range', fast: false, path: `/tiles/${TS}/8/0/0.png` },
  { name: 'tile with a non-canonical z', fast: false, path: `/tiles/${TS}/07/0/0.png` },
  { name: 'tile of an unpublished timestamp', fast: false, path: '/tiles/202001010000/0/0/0.png' },
  {
    name: 'no credentials',
    fast: false,
    path: '/status.json',
    headers: () => ({ Authorization: '' }),
  },
  { name: 'refused key', fast: false, path: ARCHIVE, key: 'refused' },
];

/** The limited key until both paths refuse it (429). */
const limitedCases = (count: number): Case[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `limited key, request ${i + 1}`,
    fast: i + 1 < count, // the last one is refused: Koa answers the 429
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
      tile: String((await get(pair.koa.baseUrl, { path: TILE }, {})).headers.etag),
    };
    // Same state on both: one status, one range and one tile request each.
    await get(pair.fast.baseUrl, { path: '/status.json' }, {});
    await get(pair.fast.baseUrl, { path: ARCHIVE }, { Range: 'bytes=0-0' });
    await get(pair.fast.baseUrl, { path: TILE }, {});

    let lastStatus = 0;
    for (const c of [...CASES, ...limitedCases(pair.limitedRequests)]) {
      const headers = c.headers?.(etags) ?? {};
      const fastBefore = await fastPathResponses(pair.fast.adminPort);
      const a = await get(pair.fast.baseUrl, c, headers);
      if (c.fast !== undefined) {
        const answeredFast = (await fastPathResponses(pair.fast.adminPort)) > fastBefore;
        expect({ case: c.name, fast: answeredFast }).toEqual({ case: c.name, fast: c.fast });
      }
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
    // The Koa replica never used the fast path.
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
