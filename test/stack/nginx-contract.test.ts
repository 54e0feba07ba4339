/**
 * The HTTP contract (docs/behaviour.md) through the edge: the shipped nginx config (rendered for
 * local ports) run by the real nginx binary in front of two real replicas (Redis, S3 endpoint,
 * ingest worker).
 * Every answer through nginx is compared with the same request sent to a replica directly:
 * bytes, status and every header a client relies on must be equal, except what the edge adds
 * on purpose (X-Request-Id, gzip of JSON). Also: errors nginx generates itself are JSON error
 * records, the admin endpoints are unreachable, and per-IP limits stop anonymous floods.
 */
import type { IncomingHttpHeaders } from 'node:http';
import zlib from 'node:zlib';
import { createRedisKeyAdminStore } from '../../src/adapters/redis/key-admin';
import type { LocalNginx } from '../../tools/stack/local-nginx';
import { freePort } from '../../tools/stack/free-port';
import { buildArchive } from '../fixtures/archives';
import {
  accessLog,
  edgeRequest,
  rawExchange,
  startEdge,
  startEdgeStack,
  type EdgeStack,
} from '../harness/edge-stack';
import type { RawResponse } from '../harness/http-client';
import { stackAuth, STACK_APP, STACK_KEYS } from '../harness/production-stack';
import { waitFor } from '../harness/wait';
import { recentTimestamp } from '../harness/timestamps';

jest.setTimeout(60_000);

let edge: EdgeStack;
let direct: string;
const now = Date.now();
const ts = (i: number) => recentTimestamp(i, now);
/** Enough timestamps for a status document above gzip_min_length (512 bytes). */
const FRAMES = 36;
let archive: Buffer;
let archivePath: string;
const auth = stackAuth();
const OTHER_APP = 'other-web'; // known and enabled, but not bound to the `good` key -> 403

/** Headers a client relies on; equal through the edge and directly. */
const CONTRACT_HEADERS = [
  'content-type',
  'content-length',
  'content-range',
  'content-encoding',
  'transfer-encoding',
  'etag',
  'last-modified',
  'cache-control',
  'accept-ranges',
  'x-content-type-options',
  'allow',
  'www-authenticate',
  'retry-after',
  'x-ratelimit-limit',
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
];

function contractHeaders(headers: IncomingHttpHeaders): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of CONTRACT_HEADERS) if (headers[name] !== undefined) out[name] = headers[name];
  // gzip_vary adds Accept-Encoding to JSON large enough to compress; Origin is the replica's.
  const vary = String(headers.vary ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v && v.toLowerCase() !== 'accept-encoding');
  if (vary.length) out.vary = vary.join(', ');
  return out;
}

type Init = Parameters<typeof edgeRequest>[2];

/** The same request through nginx, then directly to a replica. */
async function both(path: string, init: Init = {}): Promise<[RawResponse, RawResponse]> {
  const viaEdge = await edgeRequest(edge.edgeUrl, path, init);
  const viaReplica = await edgeRequest(direct, path, init);
  return [viaEdge, viaReplica];
}

function expectSameAnswer(viaEdge: RawResponse, viaReplica: RawResponse): void {
  expect(viaEdge.status).toBe(viaReplica.status);
  expect(contractHeaders(viaEdge.headers)).toEqual(contractHeaders(viaReplica.headers));
  expect(viaEdge.body.equals(viaReplica.body)).toBe(true);
  expect(viaEdge.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
}

function expectRateLimitHeaders(res: RawResponse): void {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
    expect(res.headers[name]).toMatch(/^\d+$/);
}

function expectEdgeRecord(res: RawResponse, code: number, message: string): void {
  expect(res.status).toBe(code);
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
  expect(res.json()).toEqual({ error: { code, message } });
  expect(res.body.toString().endsWith('}\n')).toBe(true);
}

beforeAll(async () => {
  edge = await startEdgeStack({ replicas: 2 });
  console.info(`[nginx-contract] backends: ${edge.stack.backends}, nginx ${edge.edgeUrl}`);
  direct = edge.stack.baseUrls[0]!;
  // The ranged archive is ~1 MB: larger than nginx's in-memory proxy buffers, so it streams.
  archive = buildArchive(ts(1), 5);
  archivePath = `/tiles/${ts(1)}.pmtiles`;
  await Promise.all([
    edge.stack.s3.put(`${ts(1)}.pmtiles`, archive),
    ...Array.from({ length: FRAMES }, (_, i) => i)
      .filter((i) => i !== 1)
      .map((i) => edge.stack.s3.put(`${ts(i)}.pmtiles`, buildArchive(ts(i), 0))),
  ]);
  await createRedisKeyAdminStore(edge.stack.client).update((data) => ({
    ...data,
    apps: [...data.apps, { id: OTHER_APP, disabled: false }],
  }));
  for (const url of edge.stack.baseUrls) {
    await waitFor(
      async () => {
        const res = await edgeRequest(url, '/status.json', { headers: auth });
        return (
          res.status === 200 && res.json<{ timestamps: string[] }>().timestamps.length === FRAMES
        );
      },
      20_000,
      `all frames listed on ${url}`,
      100,
    );
    await waitFor(
      async () =>
        (
          await edgeRequest(url, '/status.json', {
            headers: { ...auth, 'X-App': `Bearer ${OTHER_APP}` },
          })
        ).status === 403,
      5000,
      'other app known',
    );
  }
});
afterAll(() => edge?.stop());

describe('status through the edge', () => {
  it('200 with the exact three fields, a strong ETag equal to the replica’s, no-cache, rate-limit headers', async () => {
    const [viaEdge, viaReplica] = await both('/status.json', { headers: auth });
    expect(viaEdge.status).toBe(200);
    expectSameAnswer(viaEdge, viaReplica);
    expect(viaEdge.headers.etag).toMatch(/^"[^"]+"$/);
    expect(viaEdge.headers['cache-control']).toBe('private, no-cache');
    expect(viaEdge.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(viaEdge.json<object>()).sort()).toEqual([
      'forecasts',
      'healthy',
      'latest',
      'timestamps',
    ]);
    expectRateLimitHeaders(viaEdge);
    const revalidated = await edgeRequest(edge.edgeUrl, '/status.json', {
      headers: { ...auth, 'If-None-Match': viaEdge.headers.etag! },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body).toHaveLength(0);
    expect(revalidated.headers.etag).toBe(viaEdge.headers.etag);
    expectRateLimitHeaders(revalidated);
  });

  it("passes the replica's prepared gzip and brotli bytes through unchanged, strong ETag kept", async () => {
    const plain = await edgeRequest(direct, '/status.json', { headers: auth });
    for (const coding of ['gzip', 'br']) {
      const headers = { ...auth, 'Accept-Encoding': coding };
      const [viaEdge, viaReplica] = [
        await edgeRequest(edge.edgeUrl, '/status.json', { headers }),
        await edgeRequest(direct, '/status.json', { headers }),
      ];
      expect(viaEdge.status).toBe(200);
      expect(viaEdge.headers['content-encoding']).toBe(coding);
      expect(viaEdge.headers.vary).toMatch(/Accept-Encoding/);
      // Byte for byte what the replica prepared: nginx did not compress again.
      expect(viaEdge.body.equals(viaReplica.body)).toBe(true);
      const decoded =
        coding === 'gzip' ? zlib.gunzipSync(viaEdge.body) : zlib.brotliDecompressSync(viaEdge.body);
      expect(decoded.equals(plain.body)).toBe(true);
      expect(viaEdge.headers.etag).toBe(viaReplica.headers.etag);
      expect(viaEdge.headers.etag).toMatch(/^"[^"]+"$/);
      const revalidated = await edgeRequest(edge.edgeUrl, '/status.json', {
        headers: { ...headers, 'If-None-Match': viaEdge.headers.etag! },
      });
      expect(revalidated.status).toBe(304);
    }
  });
});

describe('archives through the edge', () => {
  it('200: identical bytes, exact Content-Length, no chunking, strong ETag equal to direct', async () => {
    const [viaEdge, viaReplica] = await both(archivePath, { headers: auth });
    expect(viaEdge.status).toBe(200);
    expectSameAnswer(viaEdge, viaReplica);
    expect(viaEdge.body.equals(archive)).toBe(true);
    expect(viaEdge.headers['content-length']).toBe(String(archive.length));
    expect(viaEdge.headers['transfer-encoding']).toBeUndefined();
    expect(viaEdge.headers['content-type']).toBe('application/vnd.pmtiles');
    expect(viaEdge.headers['accept-ranges']).toBe('bytes');
    expect(viaEdge.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(viaEdge.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    expectRateLimitHeaders(viaEdge);
  });

  it('is never compressed, even when the client asks for gzip', async () => {
    for (const range of [undefined, 'bytes=0-16383']) {
      const headers = {
        ...auth,
        'Accept-Encoding': 'gzip, deflate, br',
        ...(range ? { Range: range } : {}),
      };
      const [viaEdge, viaReplica] = await both(archivePath, { headers });
      expectSameAnswer(viaEdge, viaReplica);
      expect(viaEdge.headers['content-encoding']).toBeUndefined();
      expect(viaEdge.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
      expect(viaEdge.headers.vary ?? '').not.toMatch(/Accept-Encoding/i);
    }
  });

  it('206 for a-b, a-, -n, 0-0 and clamped ranges, byte-exact and equal to direct', async () => {
    const size = archive.length;
    const cases: Array<[string, number, number]> = [
      ['bytes=0-0', 0, 0],
      ['bytes=0-16383', 0, 16383],
      ['bytes=1000-1999', 1000, 1999],
      [`bytes=${size - 10}-`, size - 10, size - 1],
      ['bytes=-700', size - 700, size - 1],
      [`bytes=100-${size + 1000}`, 100, size - 1],
      [`bytes=-${size + 5}`, 0, size - 1],
      ['bytes=300000-700000', 300000, 700000],
    ];
    for (const [range, start, end] of cases) {
      const [viaEdge, viaReplica] = await both(archivePath, { headers: { ...auth, Range: range } });
      expect([range, viaEdge.status]).toEqual([range, 206]);
      expectSameAnswer(viaEdge, viaReplica);
      expect(viaEdge.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
      expect(viaEdge.headers['content-length']).toBe(String(end - start + 1));
      expect(viaEdge.body.equals(archive.subarray(start, end + 1))).toBe(true);
      expectRateLimitHeaders(viaEdge);
    }
  });

  it('416 with Content-Range bytes */size and the error record; several ranges or another unit -> 200 whole', async () => {
    const size = archive.length;
    const [unsatisfiable, directUnsatisfiable] = await both(archivePath, {
      headers: { ...auth, Range: `bytes=${size}-` },
    });
    expect(unsatisfiable.status).toBe(416);
    expectSameAnswer(unsatisfiable, directUnsatisfiable);
    expect(unsatisfiable.headers['content-range']).toBe(`bytes */${size}`);
    expect(unsatisfiable.json()).toEqual({
      error: { code: 416, message: 'Range Not Satisfiable' },
    });
    expectRateLimitHeaders(unsatisfiable);
    for (const range of ['bytes=0-0,10-20', 'items=0-5', 'bytes=garbage']) {
      const [viaEdge, viaReplica] = await both(archivePath, { headers: { ...auth, Range: range } });
      expect([range, viaEdge.status]).toEqual([range, 200]);
      expectSameAnswer(viaEdge, viaReplica);
      expect(viaEdge.body.equals(archive)).toBe(true);
    }
  });

  it('HEAD: the same headers as GET, no body', async () => {
    for (const headers of [auth, { ...auth, Range: 'bytes=0-16383' }]) {
      const [viaEdge, viaReplica] = await both(archivePath, { method: 'HEAD', headers });
      expectSameAnswer(viaEdge, viaReplica);
      expect(viaEdge.body).toHaveLength(0);
      const get = await edgeRequest(edge.edgeUrl, archivePath, { headers });
      expect(contractHeaders(viaEdge.headers)).toEqual(contractHeaders(get.headers));
    }
  });

  it('conditionals pass through untouched: If-None-Match 304, If-Match 412, If-Range honoured or not', async () => {
    const head = await edgeRequest(direct, archivePath, { method: 'HEAD', headers: auth });
    const etag = head.headers.etag!;
    const lastModified = head.headers['last-modified']!;

    const [notModified, directNotModified] = await both(archivePath, {
      headers: { ...auth, 'If-None-Match': etag, Range: 'bytes=0-99' },
    });
    expect(notModified.status).toBe(304);
    expectSameAnswer(notModified, directNotModified);
    expectRateLimitHeaders(notModified);

    const [failed, directFailed] = await both(archivePath, {
      headers: { ...auth, 'If-Match': '"something-else"' },
    });
    expect(failed.status).toBe(412);
    expectSameAnswer(failed, directFailed);
    expect(failed.json()).toEqual({ error: { code: 412, message: 'Precondition Failed' } });

    const matched = await edgeRequest(edge.edgeUrl, archivePath, {
      headers: { ...auth, 'If-Match': etag, Range: 'bytes=0-9' },
    });
    expect(matched.status).toBe(206);

    for (const [ifRange, status] of [
      [etag, 206],
      [lastModified, 206],
      ['"stale-etag"', 200],
      [`W/${etag}`, 200],
    ] as const) {
      const [viaEdge, viaReplica] = await both(archivePath, {
        headers: { ...auth, Range: 'bytes=10-19', 'If-Range': ifRange },
      });
      expect([ifRange, viaEdge.status]).toEqual([ifRange, status]);
      expectSameAnswer(viaEdge, viaReplica);
    }
  });
});

describe('CORS, errors and rate limits through the edge', () => {
  it('answers a preflight 204 without credentials, exactly as the replica does', async () => {
    const preflight = {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://maps.example.com',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization, x-app, range, if-none-match',
      },
    };
    const [viaEdge, viaReplica] = await both(archivePath, preflight);
    expect(viaEdge.status).toBe(204);
    expectSameAnswer(viaEdge, viaReplica);
    expect(viaEdge.headers['access-control-allow-origin']).toBe('*');
    expect(viaEdge.headers['access-control-max-age']).toBe('600');
    expect(viaEdge.headers['x-ratelimit-limit']).toBeUndefined();

    const [get, directGet] = await both(archivePath, {
      headers: { ...auth, Origin: 'https://maps.example.com', Range: 'bytes=0-9' },
    });
    expectSameAnswer(get, directGet);
    expect(get.headers['access-control-expose-headers']).toMatch(/Content-Range/);
  });

  it('passes every error record of a replica through unchanged (401, 403, 404, 400, 405)', async () => {
    const cases: Array<[string, Init, number]> = [
      ['/status.json', {}, 401],
      [
        '/status.json',
        { headers: { ...auth, Authorization: 'Bearer rk_unknown-key-000000' } },
        401,
      ],
      [
        archivePath,
        { headers: { Authorization: 'Basic abc', 'X-App': `Bearer ${STACK_APP}` } },
        401,
      ],
      ['/status.json', { headers: { ...auth, 'X-App': `Bearer ${OTHER_APP}` } }, 403],
      ['/tiles/209901010000.pmtiles', { headers: auth }, 404],
      ['/no/such/path', {}, 404],
      ['/tiles/202613011200.pmtiles', { headers: auth }, 400],
      ['/tiles/12345.pmtiles', { headers: auth }, 400],
      [archivePath, { method: 'DELETE', headers: auth }, 405],
    ];
    for (const [path, init, status] of cases) {
      const [viaEdge, viaReplica] = await both(path, init);
      expect([path, viaEdge.status]).toEqual([path, status]);
      expectSameAnswer(viaEdge, viaReplica);
      expect(viaEdge.json<{ error: { code: number } }>().error.code).toBe(status);
      if (status === 404 && path.startsWith('/tiles/')) expectRateLimitHeaders(viaEdge);
      if (status === 400) expectRateLimitHeaders(viaEdge);
      if (status === 401 || status === 403)
        expect(viaEdge.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('carries the replica’s rate limit: X-RateLimit-* counting down, then 429 with Retry-After', async () => {
    const headers = { ...stackAuth(STACK_KEYS.ten), Range: 'bytes=0-9' };
    const remaining: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await edgeRequest(edge.edgeUrl, archivePath, { headers });
      expect(res.status).toBe(206);
      expect(res.headers['x-ratelimit-limit']).toBe('10');
      remaining.push(String(res.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    const [limited, directLimited] = await both(archivePath, { headers });
    expect(limited.status).toBe(429);
    expectSameAnswer(limited, directLimited);
    expect(limited.json()).toEqual({ error: { code: 429, message: 'Too Many Requests' } });
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('edge behaviour', () => {
  it('X-Request-Id: generated when absent, a safe client value passed through, an unsafe one replaced; logged', async () => {
    const generated = await edgeRequest(edge.edgeUrl, '/status.json', { headers: auth });
    const again = await edgeRequest(edge.edgeUrl, '/status.json', { headers: auth });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    expect(again.headers['x-request-id']).not.toBe(generated.headers['x-request-id']);

    const given = await edgeRequest(edge.edgeUrl, archivePath, {
      headers: { ...auth, Range: 'bytes=0-0', 'X-Request-Id': 'map-client.42:frame-7' },
    });
    expect(given.headers['x-request-id']).toBe('map-client.42:frame-7');
    // One id, not the replica's echo and nginx's side by side.
    const rawCount = (res: RawResponse) => String(res.headers['x-request-id']).split(',').length;
    expect(rawCount(given)).toBe(1);

    for (const unsafe of ['has space', 'x'.repeat(129), 'quote"d', 'new\\nline']) {
      const res = await edgeRequest(edge.edgeUrl, '/status.json', {
        headers: { ...auth, 'X-Request-Id': unsafe },
      });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    }

    await waitFor(
      async () =>
        (await accessLog(edge.nginx)).some((l) => l.request_id === 'map-client.42:frame-7'),
      2000,
      'access log line',
    );
    const lines = await accessLog(edge.nginx);
    const line = lines.find((l) => l.request_id === 'map-client.42:frame-7')!;
    expect(line).toMatchObject({
      status: 206,
      method: 'GET',
      uri: archivePath,
      range: 'bytes=0-0',
      upstream_status: '206',
    });
    expect(String(line.upstream_addr)).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(lines.some((l) => l.request_id === generated.headers['x-request-id'])).toBe(true);
    // Credentials never reach the access log.
    const text = JSON.stringify(lines);
    expect(text).not.toContain(STACK_KEYS.good);
    expect(text).not.toContain(STACK_KEYS.ten);
  });

  it('never routes the admin endpoints: /metrics, /healthz, /readyz answer 404 records at the edge', async () => {
    const adminPort = edge.stack.replicas[0]!.adminPort;
    expect((await edgeRequest(`http://127.0.0.1:${adminPort}`, '/healthz')).status).toBe(200);
    for (const path of [
      '/metrics',
      '/healthz',
      '/readyz',
      '/readyz/',
      '/METRICS',
      '/metrics?x=1',
    ]) {
      expectEdgeRecord(await edgeRequest(edge.edgeUrl, path, { headers: auth }), 404, 'Not Found');
    }
  });

  it('answers errors it generates itself with JSON records: 414, 431, 400, 405, 413', async () => {
    expectEdgeRecord(
      await edgeRequest(edge.edgeUrl, `/tiles/${'1'.repeat(9000)}.pmtiles`, { headers: auth }),
      414,
      'URI Too Long',
    );
    expectEdgeRecord(
      await edgeRequest(edge.edgeUrl, '/status.json', {
        headers: { ...auth, 'X-Padding': 'p'.repeat(9000) },
      }),
      431,
      'Request Header Fields Too Large',
    );
    const trace = await edgeRequest(edge.edgeUrl, '/status.json', {
      method: 'TRACE',
      headers: auth,
    });
    expectEdgeRecord(trace, 405, 'Method Not Allowed');
    expect(trace.headers.allow).toBe('GET, HEAD, OPTIONS');
    expectEdgeRecord(
      await edgeRequest(edge.edgeUrl, '/status.json', {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: 'x'.repeat(4096),
      }),
      413,
      'Content Too Large',
    );
    for (const raw of [
      'GET /status.json HTTP/1.1\r\n\r\n',
      'get /status.json HTTP/1.1\r\nHost: x\r\n\r\n',
      'NONSENSE\r\n\r\n',
    ]) {
      const answer = await rawExchange(edge.edgeUrl, raw);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toMatch(/\r\nContent-Type: application\/json\r\n/);
      expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe(
        '{"error":{"code":400,"message":"Bad Request"}}\n',
      );
    }
  });

  it('answers an unknown Transfer-Encoding 501, an HTTP/2.0 line 505 and an unmet Expect 417, each with the record', async () => {
    const credentials = Object.entries(auth)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const cases: Array<[string, number, string]> = [
      [
        `GET /status.json HTTP/1.1\r\nHost: x\r\n${credentials}Transfer-Encoding: identity\r\n\r\n`,
        501,
        'Not Implemented',
      ],
      [
        `GET /status.json HTTP/1.1\r\nHost: x\r\n${credentials}Transfer-Encoding: xchunked\r\n\r\n`,
        501,
        'Not Implemented',
      ],
      [
        `GET /status.json HTTP/2.0\r\nHost: x\r\n${credentials}\r\n`,
        505,
        'HTTP Version Not Supported',
      ],
      [
        `GET /status.json HTTP/1.1\r\nHost: x\r\n${credentials}Expect: foo\r\nConnection: close\r\n\r\n`,
        417,
        'Expectation Failed',
      ],
    ];
    for (const [raw, code, message] of cases) {
      const answer = await rawExchange(edge.edgeUrl, raw);
      expect(answer.slice(0, 12)).toBe(`HTTP/1.1 ${code}`);
      expect(answer).toMatch(/\r\nContent-Type: application\/json\r\n/);
      expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe(
        `{"error":{"code":${code},"message":"${message}"}}`,
      );
    }
    // Expect: 100-continue still reaches the replica.
    const continued = await rawExchange(
      edge.edgeUrl,
      `GET /status.json HTTP/1.1\r\nHost: x\r\n${credentials}Expect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    expect(continued).toMatch(/^HTTP\/1\.1 (100 Continue\r\n\r\nHTTP\/1\.1 )?200 /);
  });

  it('502 JSON record when every replica is down, after trying each once', async () => {
    const dead = [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`];
    const lonely: LocalNginx = await startEdge(dead);
    try {
      const res = await edgeRequest(lonely.url, '/status.json', { headers: auth });
      expectEdgeRecord(res, 502, 'Bad Gateway');
      await waitFor(async () => (await accessLog(lonely)).length > 0, 2000, 'access log line');
      const [line] = await accessLog(lonely);
      expect(String(line!.upstream_addr).split(', ').sort()).toEqual([...dead].sort());
    } finally {
      await lonely.stop();
    }
  });

  it('limits anonymous floods per client IP before they reach a replica, without touching other clients', async () => {
    // 127.0.0.2 is another client address on Linux loopback: this flood has its own budget.
    const flooder = '127.0.0.2';
    const floodStarted = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 90 }, () =>
        edgeRequest(edge.edgeUrl, '/status.json', { localAddress: flooder }),
      ),
    );
    const limited = answers.filter((r) => r.status === 429);
    const reachedReplica = answers.filter((r) => r.status === 401);
    expect(limited.length + reachedReplica.length).toBe(90);
    // The burst of 50, plus 10 per second the flood lasted.
    const refill = Math.ceil(((Date.now() - floodStarted) / 1000) * 10);
    expect(reachedReplica.length).toBeLessThanOrEqual(50 + refill + 1);
    expect(reachedReplica.length).toBeGreaterThanOrEqual(50);
    expect(limited.length).toBeGreaterThanOrEqual(20);
    for (const res of limited) {
      expectEdgeRecord(res, 429, 'Too Many Requests');
      expect(res.headers['retry-after']).toBe('1');
    }
    // The same address with credentials, and another address without, are unaffected.
    expect(
      (await edgeRequest(edge.edgeUrl, '/status.json', { localAddress: flooder, headers: auth }))
        .status,
    ).toBe(200);
    expect(
      (await edgeRequest(edge.edgeUrl, '/status.json', { localAddress: '127.0.0.1' })).status,
    ).toBe(401);
  });
});
