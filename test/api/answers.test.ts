/**
 * The core's answers in-process (no socket): one request sequence over the archive route,
 * the status document, z/x/y tiles and every error, in three setups (embedded with `*` CORS,
 * embedded with listed origins, production with Redis, S3 and leased limits). Each case
 * states its status, the headers it must and must not carry, its bytes, and in production
 * whether the core decides it synchronously (everything in memory: the status document, a
 * cached window, decoded directories, a point of a leased block) or with a promise (a store
 * read, a directory load); a request that renews the key's block is allowed a promise. The common headers every answer shares are checked on every case.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { RedisRateLimiter } from '../../src/adapters/redis/rate-limiter';
import type { InjectResponse } from '../../src/http/inject';
import type { Replica } from '../../src/wiring/replica';
import { tileBytes } from '../fixtures/archives';
import { APPS, auth, injectInto, KEYS, startEmbeddedApi } from '../harness/embedded-api';
import { STACK_KEYS, stackAuth, startProductionStack } from '../harness/production-stack';
import { recentTimestamp } from '../harness/timestamps';
import { sparseArchive } from '../harness/tile-conformance';

jest.setTimeout(60_000);

const TS = recentTimestamp(3);
const archive = sparseArchive(TS); // zooms 0-7, leaf directories, every 7th tile missing
const size = archive.length;
const ARCHIVE = `/tiles/${TS}.pmtiles`;
/** A tile the archive holds ((x + y + z) % 7 !== 3) and one it does not (the empty PNG). */
const TILE = `/tiles/${TS}/7/10/20.png`;
const EMPTY_TILE = `/tiles/${TS}/7/0/3.png`;
const ORIGIN = 'https://maps.example';

type Headers = Record<string, string>;
type Etags = { status: string; archive: string; tile: string };

/** What a case's body must be. */
type Body =
  | { readonly archive: [number, number] }
  | { readonly tile: [number, number, number] }
  | 'status'
  | 'error'
  | 'empty-tile'
  | 'none';

interface Case {
  readonly name: string;
  readonly path: string;
  readonly method?: string;
  readonly key?: 'good' | 'limited' | 'refused';
  readonly headers?: (etags: Etags) => Headers;
  readonly status: number;
  readonly body: Body;
  /** In production: decided without a promise (true), with one (false), or either. */
  readonly sync?: boolean;
  /** Headers (lower-case) that must be present, with an exact value or a pattern. */
  readonly has?: Record<string, string | RegExp>;
  /** Headers that must be absent. */
  readonly lacks?: readonly string[];
}

const NEVER_ON_ERRORS = [
  'etag',
  'last-modified',
  'cache-control',
  'accept-ranges',
  'content-range',
];

const CASES: readonly Case[] = [
  {
    name: 'status',
    path: '/status.json',
    status: 200,
    body: 'status',
    sync: true,
    has: {
      'content-type': 'application/json',
      'cache-control': 'private, no-cache',
      vary: 'Origin, Accept-Encoding',
    },
    lacks: ['content-encoding'],
  },
  {
    name: 'status gzip',
    path: '/status.json',
    headers: () => ({ 'Accept-Encoding': 'gzip' }),
    status: 200,
    body: 'none',
    sync: true,
    has: { 'content-encoding': 'gzip', etag: /-gzip"$/ },
  },
  {
    name: 'status x-gzip is gzip',
    path: '/status.json',
    headers: () => ({ 'Accept-Encoding': 'x-gzip' }),
    status: 200,
    body: 'none',
    sync: true,
    has: { 'content-encoding': 'gzip' },
  },
  {
    name: 'status br',
    path: '/status.json',
    headers: () => ({ 'Accept-Encoding': 'gzip, deflate, br' }),
    status: 200,
    body: 'none',
    sync: true,
    has: { 'content-encoding': 'br' },
  },
  { name: 'status HEAD', path: '/status.json', method: 'HEAD', status: 200, body: 'none' },
  {
    name: 'status 304',
    path: '/status.json',
    headers: (e) => ({ 'If-None-Match': e.status }),
    status: 304,
    body: 'none',
    sync: true,
    lacks: ['content-length', 'content-type'],
  },
  {
    name: 'status 304 for the identity tag asked in gzip',
    path: '/status.json',
    headers: (e) => ({ 'If-None-Match': e.status, 'Accept-Encoding': 'gzip' }),
    status: 304,
    body: 'none',
  },
  {
    name: 'status If-Match of another coding of the document',
    path: '/status.json',
    headers: (e) => ({ 'If-Match': e.status.replace(/"$/, '-br"') }),
    status: 200,
    body: 'status',
  },
  {
    name: 'status If-Match that fails',
    path: '/status.json',
    headers: () => ({ 'If-Match': '"other"' }),
    status: 412,
    body: 'error',
    sync: true,
    lacks: NEVER_ON_ERRORS,
  },
  {
    name: 'status with a request id',
    path: '/status.json',
    headers: () => ({ 'X-Request-Id': 'abc-1' }),
    status: 200,
    body: 'status',
    has: { 'x-request-id': 'abc-1' },
  },
  {
    name: 'status with a malformed request id',
    path: '/status.json',
    headers: () => ({ 'X-Request-Id': 'a b' }),
    status: 200,
    body: 'status',
    has: { 'x-request-id': /^[0-9a-f-]{36}$/ },
  },
  // The setup's first read filled the block at offset 0; a window further in is cold once.
  {
    name: 'range',
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=0-1023' }),
    status: 206,
    body: { archive: [0, 1023] },
    sync: true,
    has: {
      'content-range': `bytes 0-1023/${size}`,
      'content-type': 'application/vnd.pmtiles',
      'accept-ranges': 'bytes',
      'cache-control': 'private, max-age=31536000, immutable',
      'content-length': '1024',
      vary: 'Origin',
    },
    lacks: ['content-encoding'],
  },
  {
    name: 'range, cold',
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=600000-601023' }),
    status: 206,
    body: { archive: [600000, 601023] },
    sync: false,
  },
  {
    name: 'range, warm',
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=600000-601023' }),
    status: 206,
    body: { archive: [600000, 601023] },
    sync: true,
  },
  {
    name: 'suffix range',
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=-100' }),
    status: 206,
    body: { archive: [size - 100, size - 1] },
    has: { 'content-range': `bytes ${size - 100}-${size - 1}/${size}` },
  },
  {
    name: 'suffix range of all but one byte',
    path: ARCHIVE,
    headers: () => ({ Range: `bytes=-${size - 1}` }),
    status: 206,
    body: { archive: [1, size - 1] },
    has: { 'content-range': `bytes 1-${size - 1}/${size}` },
  },
  {
    name: 'open range',
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=1000-' }),
    status: 206,
    body: { archive: [1000, size - 1] },
  },
  {
    name: 'whole archive',
    path: ARCHIVE,
    status: 200,
    body: { archive: [0, size - 1] },
    sync: false,
    has: { 'content-length': String(size) },
  },
  {
    name: 'archive HEAD',
    path: ARCHIVE,
    method: 'HEAD',
    headers: () => ({ Range: 'bytes=0-9' }),
    status: 206,
    body: 'none',
    sync: true,
    has: { 'content-length': '10', 'content-range': `bytes 0-9/${size}` },
  },
  {
    name: 'archive 304',
    path: ARCHIVE,
    headers: (e) => ({ 'If-None-Match': e.archive }),
    status: 304,
    body: 'none',
    sync: true,
    has: { etag: /^"/ },
    lacks: ['content-length', 'content-type'],
  },
  {
    name: 'If-Range that matches',
    path: ARCHIVE,
    headers: (e) => ({ Range: 'bytes=0-1023', 'If-Range': e.archive }),
    status: 206,
    body: { archive: [0, 1023] },
    sync: true,
  },
  {
    name: 'If-Range that does not match',
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=0-1023', 'If-Range': '"other"' }),
    status: 200,
    body: { archive: [0, size - 1] },
  },
  {
    name: 'several ranges',
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=0-1,5-9' }),
    status: 200,
    body: { archive: [0, size - 1] },
  },
  {
    name: 'unsatisfiable range',
    path: ARCHIVE,
    headers: () => ({ Range: 'bytes=99999999-' }),
    status: 416,
    body: 'error',
    sync: true,
    has: { 'content-range': `bytes */${size}` },
    lacks: ['etag', 'accept-ranges', 'cache-control'],
  },
  {
    name: 'If-Match that fails',
    path: ARCHIVE,
    headers: () => ({ 'If-Match': '"other"' }),
    status: 412,
    body: 'error',
    sync: true,
    lacks: NEVER_ON_ERRORS,
  },
  {
    name: 'unpublished timestamp',
    path: '/tiles/202001010000.pmtiles',
    status: 404,
    body: 'error',
    sync: true,
  },
  {
    name: 'invalid timestamp',
    path: '/tiles/202613011200.pmtiles',
    status: 400,
    body: 'error',
    sync: true,
  },
  {
    name: 'query string',
    path: `${ARCHIVE}?v=1`,
    headers: () => ({ Range: 'bytes=0-1023' }),
    status: 206,
    body: { archive: [0, 1023] },
    sync: true,
  },
  // z/x/y tiles: the setup read TILE once, so its directories are decoded.
  {
    name: 'tile',
    path: TILE,
    status: 200,
    body: { tile: [7, 10, 20] },
    sync: true,
    has: { 'content-type': 'image/png', etag: /^"[^"]+\.7-10-20"$/ },
    lacks: ['oatiles-hint'],
  },
  { name: 'tile HEAD', path: TILE, method: 'HEAD', status: 200, body: 'none', sync: true },
  {
    name: 'tile 304',
    path: TILE,
    headers: (e) => ({ 'If-None-Match': e.tile }),
    status: 304,
    body: 'none',
    sync: true,
  },
  { name: 'empty tile, cold', path: EMPTY_TILE, status: 200, body: 'empty-tile' },
  {
    name: 'empty tile, warm',
    path: EMPTY_TILE,
    status: 200,
    body: 'empty-tile',
    sync: true,
    has: { 'oatiles-hint': 'empty', 'content-type': 'image/png' },
  },
  { name: 'empty tile HEAD', path: EMPTY_TILE, method: 'HEAD', status: 200, body: 'none' },
  { name: 'tile past the zoom range', path: `/tiles/${TS}/8/0/0.png`, status: 400, body: 'error' },
  {
    name: 'tile with a non-canonical z',
    path: `/tiles/${TS}/07/0/0.png`,
    status: 400,
    body: 'error',
    sync: true,
  },
  {
    name: 'tile of an unpublished timestamp',
    path: '/tiles/202001010000/0/0/0.png',
    status: 404,
    body: 'error',
    sync: true,
  },
  {
    name: 'no credentials',
    path: '/status.json',
    headers: () => ({ Authorization: '' }),
    status: 401,
    body: 'error',
    sync: true,
    has: { 'www-authenticate': 'Bearer' },
    lacks: ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
  },
  {
    name: 'refused key',
    path: ARCHIVE,
    key: 'refused',
    status: 401,
    body: 'error',
    lacks: ['x-ratelimit-limit', 'retry-after'],
  },
  {
    name: 'a method the API does not allow',
    path: ARCHIVE,
    method: 'DELETE',
    status: 405,
    body: 'error',
    sync: true,
    has: { allow: 'GET, HEAD, OPTIONS' },
    lacks: ['x-ratelimit-limit'],
  },
  {
    name: 'plain OPTIONS',
    path: '/status.json',
    method: 'OPTIONS',
    status: 204,
    body: 'none',
    sync: true,
    has: { allow: 'GET, HEAD, OPTIONS' },
    lacks: ['access-control-allow-origin', 'content-length', 'x-ratelimit-limit'],
  },
  {
    name: 'an expectation the server cannot meet',
    path: '/status.json',
    headers: () => ({ Expect: 'something-else' }),
    status: 417,
    body: 'error',
    sync: true,
    lacks: ['x-ratelimit-limit'],
  },
  {
    name: 'two Host lines',
    path: '/status.json',
    headers: () => ({ Host: ['a.example', 'b.example'] as unknown as string }),
    status: 400,
    body: 'error',
    sync: true,
  },
];

/** The limited key until it is refused (429), from memory once its lease is spent. */
const limitedCases = (allowed: number): Case[] =>
  Array.from({ length: allowed + 1 }, (_, i): Case =>
    i < allowed
      ? {
          name: `limited key, request ${i + 1}`,
          path: ARCHIVE,
          key: 'limited',
          headers: () => ({ Range: 'bytes=0-1023' }),
          status: 206,
          body: { archive: [0, 1023] },
          has: { 'x-ratelimit-remaining': String(allowed - 1 - i) },
        }
      : {
          name: `limited key, request ${i + 1}`,
          path: ARCHIVE,
          key: 'limited',
          headers: () => ({ Range: 'bytes=0-1023' }),
          status: 429,
          body: 'error',
          has: { 'retry-after': /^[1-9][0-9]*$/, 'x-ratelimit-remaining': '0' },
          lacks: NEVER_ON_ERRORS,
        },
  );

interface Setup {
  readonly replica: Replica;
  /** Points the replica holds for a key now (a leased block), or undefined (no leases). */
  readonly held: (key: 'good' | 'limited') => number | undefined;
  readonly credentials: (key: 'good' | 'limited' | 'refused') => Headers;
  readonly limit: number;
  /** Whether the sync expectations hold (leased limits decide from memory). */
  readonly checkSync: boolean;
  /** `*`, or the one listed origin. */
  readonly cors: '*' | typeof ORIGIN;
  stop(): Promise<unknown>;
}

async function embedded(cors: Setup['cors']): Promise<Setup> {
  const prepare = async (_root: string, dataDir: string) => {
    await fs.writeFile(path.join(dataDir, `${TS}.pmtiles`), archive);
  };
  const api = await startEmbeddedApi({ corsOrigins: [cors], prepare });
  await api.waitForListed(TS);
  const keys = { good: KEYS.good, limited: KEYS.limited, refused: 'rk_unknown-key' };
  return {
    replica: api.replica,
    held: () => undefined,
    credentials: (key) => auth(keys[key], APPS.web),
    limit: 3,
    // The in-memory limiter of rate-limiter-flexible always answers with a promise.
    checkSync: false,
    cors,
    stop: () => api.stop(),
  };
}

async function production(): Promise<Setup> {
  const stack = await startProductionStack({ replicas: 1, env: { RADAR_CORS_ORIGINS: '*' } });
  await stack.publish(TS, archive);
  const keys = { good: STACK_KEYS.good, limited: STACK_KEYS.ten, refused: 'rk_unknown-key' };
  const replica = stack.replicas[0]!;
  const limiter = replica.ports.limiter as RedisRateLimiter;
  const limits = { good: stack.config().rate.limit, limited: 10 };
  const ids = { good: 'good', limited: 'ten' };
  return {
    replica,
    held: (key) => limiter.held(ids[key], limits[key]),
    credentials: (key) => stackAuth(keys[key]),
    limit: 10,
    checkSync: true,
    cors: '*',
    stop: () => stack.stop(),
  };
}

function expectBody(c: Case, res: InjectResponse): void {
  const body = c.body;
  if (body === 'none') return;
  if (body === 'error') {
    expect(res.json()).toEqual({ error: { code: c.status, message: expect.any(String) } });
    expect(res.headers['content-type']).toBe('application/json');
  } else if (body === 'status') {
    expect(res.json()).toEqual({ healthy: true, latest: TS, timestamps: [TS], forecasts: [] });
  } else if (body === 'empty-tile') {
    expect(res.body.subarray(1, 4).toString()).toBe('PNG');
  } else if ('archive' in body) {
    expect(res.body.equals(archive.subarray(body.archive[0], body.archive[1] + 1))).toBe(true);
  } else {
    expect(res.body.equals(tileBytes(...body.tile, 48))).toBe(true);
  }
  expect(res.headers['content-length']).toBe(String(res.body.length));
}

function expectCommonHeaders(setup: Setup, c: Case, sent: Headers, res: InjectResponse): void {
  const h = res.headers;
  expect(h['x-content-type-options']).toBe('nosniff');
  expect(h['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(String(h.vary).split(', ')[0]).toBe('Origin');
  expect(res.rawHeaders.filter((_, i) => i % 2 === 0 && _ === 'Vary')).toHaveLength(1);
  const fromOrigin = sent.Origin !== undefined;
  const corsExpected = c.method !== 'OPTIONS' && (setup.cors === '*' || fromOrigin);
  if (corsExpected) {
    expect(h['access-control-allow-origin']).toBe(setup.cors === '*' ? '*' : ORIGIN);
    expect(String(h['access-control-expose-headers'])).toContain('X-RateLimit-Remaining');
  } else {
    expect(h['access-control-allow-origin']).toBeUndefined();
  }
  const rated =
    ![401, 403, 405, 417].includes(c.status) && !(c.status === 400 && c.name.includes('Host'));
  if (rated && c.method !== 'OPTIONS') {
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      expect(h[name]).toMatch(/^[0-9]+$/);
  } else {
    expect(h['x-ratelimit-limit']).toBeUndefined();
  }
}

describe.each([
  ['embedded, any origin', () => embedded('*')],
  ['embedded, listed origins', () => embedded(ORIGIN)],
  ['production (Redis, S3, leased limits)', production],
])('the core answers every case (%s)', (_label, start) => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await start();
  });
  afterAll(() => setup?.stop());

  it('in order, in-process', async () => {
    const send = (c: Pick<Case, 'path' | 'method' | 'key'>, headers: Headers) =>
      injectInto(setup.replica, c.path, {
        method: c.method ?? 'GET',
        headers: { ...setup.credentials(c.key ?? 'good'), ...headers },
      });
    const etags: Etags = {
      status: String((await send({ path: '/status.json' }, {})).headers.etag),
      archive: String((await send({ path: ARCHIVE }, { Range: 'bytes=0-0' })).headers.etag),
      tile: String((await send({ path: TILE }, {})).headers.etag),
    };
    // Every variant with and without an allowed and another origin.
    const variants = (c: Case): Headers[] => {
      const base = c.headers?.(etags) ?? {};
      return c.method === 'OPTIONS' ? [base] : [base, { ...base, Origin: ORIGIN }];
    };
    const cases = [...CASES, ...limitedCases(setup.limit)];
    for (const c of cases) {
      for (const headers of c.key === 'limited' ? [c.headers!(etags)] : variants(c)) {
        // A request that must renew its leased block waits for Redis: a promise, rightly.
        const leased = (setup.held(c.key === 'limited' ? 'limited' : 'good') ?? 0) > 0;
        const res = await send(c, headers);
        const label = `${c.name} ${JSON.stringify(headers)}`;
        expect({ case: label, status: res.status }).toEqual({ case: label, status: c.status });
        // The first variant only: it warms the cache the second one reads.
        const first = headers.Origin === undefined || c.key === 'limited';
        if (setup.checkSync && c.sync !== undefined && first && (leased || c.status === 401))
          expect({ case: label, sync: res.synchronous }).toEqual({ case: label, sync: c.sync });
        for (const [name, value] of Object.entries(c.has ?? {})) {
          if (value instanceof RegExp)
            expect({ case: label, [name]: res.headers[name] }).toEqual({
              case: label,
              [name]: expect.stringMatching(value),
            });
          else
            expect({ case: label, [name]: res.headers[name] }).toEqual({
              case: label,
              [name]: value,
            });
        }
        for (const name of c.lacks ?? [])
          expect({ case: label, [name]: res.headers[name] }).toEqual({ case: label });
        expectBody(c, res);
        expectCommonHeaders(setup, c, headers, res);
      }
    }
  });
});
