/**
 * What the server writes over a real socket is what the core decided in-process: for a set
 * of requests across every route and outcome, the response read from the listening replica
 * and the answer from `inject` have the same status, header lines and bytes (only `Date`,
 * `Connection`/`Keep-Alive`, generated request ids and the reset second may differ). Paths the
 * Koa app answers (the viewer, unknown paths) leave through the same writer, so they carry
 * the same common headers and error records. An `Expect` Node does not handle itself reaches
 * the same listener (417).
 */
import { auth, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';
import { request, type RawResponse } from '../harness/http-client';
import { buildRequest, rawExchange } from '../harness/raw-socket';
import { recentTimestamp } from '../harness/timestamps';
import { sparseArchive } from '../harness/tile-conformance';
import type { InjectResponse } from '../../src/http/inject';

const TS = recentTimestamp(3);
const archive = sparseArchive(TS);
const ARCHIVE = `/tiles/${TS}.pmtiles`;
const TILE = `/tiles/${TS}/7/10/20.png`;

let api: EmbeddedApi;
beforeAll(async () => {
  api = await startEmbeddedApiWith(TS, archive);
});
afterAll(() => api?.stop());

/** Headers that legitimately differ between two answers (values masked, not dropped). */
function comparable(
  headers: Record<string, unknown>,
  sentRequestId: boolean,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'date' || name === 'connection' || name === 'keep-alive') continue;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    if (name === 'x-request-id' && !sentRequestId) out[name] = 'generated';
    else if (name === 'x-ratelimit-reset') out[name] = /^[0-9]+$/.test(text) ? 'seconds' : text;
    // Each request spends a point: the second of the two reads one fewer.
    else if (name === 'x-ratelimit-remaining') out[name] = /^[0-9]+$/.test(text) ? 'n' : text;
    else out[name] = text;
  }
  return out;
}

const CASES: ReadonlyArray<{
  name: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
}> = [
  { name: 'status', path: '/status.json' },
  { name: 'status gzip', path: '/status.json', headers: { 'Accept-Encoding': 'gzip' } },
  { name: 'status HEAD', path: '/status.json', method: 'HEAD' },
  { name: 'range', path: ARCHIVE, headers: { Range: 'bytes=0-16383' } },
  { name: 'whole archive (streamed)', path: ARCHIVE },
  { name: 'unsatisfiable range', path: ARCHIVE, headers: { Range: 'bytes=99999999-' } },
  { name: 'tile', path: TILE },
  { name: 'TileJSON', path: `/tiles/${TS}.json` },
  { name: 'not published', path: '/tiles/202001010000.pmtiles' },
  { name: 'invalid timestamp', path: '/tiles/202602301200.pmtiles' },
  { name: 'method not allowed', path: '/status.json', method: 'POST' },
  {
    name: 'preflight',
    path: ARCHIVE,
    method: 'OPTIONS',
    headers: { Origin: 'https://a.example', 'Access-Control-Request-Method': 'GET' },
  },
  {
    name: 'with a request id and an origin',
    path: '/status.json',
    headers: { 'X-Request-Id': 'req-7', Origin: 'https://a.example' },
  },
];

describe('the socket carries exactly the in-process answer', () => {
  it.each(CASES)('$name', async (c) => {
    const headers = { ...auth(), ...c.headers };
    const injected: InjectResponse = await api.inject(c.path, {
      method: c.method ?? 'GET',
      headers,
    });
    const wire: RawResponse = await request(api.baseUrl, c.path, {
      method: c.method ?? 'GET',
      headers,
    });
    const sentId = 'X-Request-Id' in headers;
    expect({ status: wire.status, headers: comparable(wire.headers, sentId) }).toEqual({
      status: injected.status,
      headers: comparable(injected.headers, sentId),
    });
    expect(wire.body.equals(injected.body)).toBe(true);
    if (injected.headers['x-ratelimit-remaining'] !== undefined)
      expect(Number(wire.headers['x-ratelimit-remaining'])).toBe(
        Number(injected.headers['x-ratelimit-remaining']) - 1,
      );
  });
});

describe('answers of the Koa app leave through the same writer', () => {
  const expectCommon = (res: RawResponse) => {
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.vary).toBe('Origin');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  };

  it('an unknown path: the 404 record of the core, the same on the socket as in-process', async () => {
    for (const headers of [{}, auth()]) {
      const res = await request(api.baseUrl, '/nowhere', { headers });
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({ error: { code: 404, message: 'Not Found' } });
      expect(res.headers['content-length']).toBe(String(res.body.length));
      expectCommon(res);
      const injected = await api.inject('/nowhere', { headers });
      expect([injected.status, injected.body]).toEqual([res.status, res.body]);
    }
  });

  it('the viewer redirect', async () => {
    const res = await request(api.baseUrl, '/viewer');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/viewer/');
    expectCommon(res);
  });

  it('a page in-process: inject says so instead of guessing', async () => {
    await expect(api.inject('/viewer')).rejects.toThrow(/a page/);
  });
});

describe('an Expect the server does not meet', () => {
  it('is answered 417 with the error record by the same listener, not by Node', async () => {
    const outcome = await rawExchange(
      api.replica.port,
      buildRequest('GET', '/status.json', [...Object.entries(auth()), ['Expect', 'x-fancy']]),
    );
    expect(outcome.kind).toBe('response');
    if (outcome.kind !== 'response') return;
    expect(outcome.response.status).toBe(417);
    expect(JSON.parse(outcome.response.body.toString())).toEqual({
      error: { code: 417, message: 'Expectation Failed' },
    });
    expect(outcome.response.header('x-content-type-options')).toBe('nosniff');
    expect(outcome.response.header('x-request-id')).toBeDefined();
  });
});
