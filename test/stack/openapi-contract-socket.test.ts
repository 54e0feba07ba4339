/**
 * The description holds over a real socket too: a replica listening on a port answers the
 * main cases of every operation as `openapi/openapi.yaml` says (the transport's own `Date`,
 * `Connection` and `Keep-Alive` aside), `/openapi.json` is readable without credentials and
 * revalidates with its ETag, and the HTML reference is served under `/reference/` without
 * credentials, with a policy that keeps the page on its own origin.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildOpenApi } from '../../tools/build-openapi';
import { auth, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';
import { request, type RawResponse } from '../harness/http-client';
import { loadOpenApiContract, type OpenApiContract } from '../harness/openapi-contract';
import { recentTimestamp } from '../harness/timestamps';
import { sparseArchive } from '../harness/tile-conformance';

jest.setTimeout(60_000);

const TS = recentTimestamp(3);
const ARCHIVE = `/tiles/${TS}.pmtiles`;

let assetsDir: string;
let api: EmbeddedApi;
let contract: OpenApiContract;

beforeAll(async () => {
  assetsDir = await buildOpenApi({
    outDir: path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'radar-openapi-')), 'public'),
  });
  api = await startEmbeddedApiWith(TS, sparseArchive(TS), { openApiAssetsDir: assetsDir });
  contract = loadOpenApiContract();
});
afterAll(async () => {
  await api?.stop();
  if (assetsDir) await fs.rm(path.dirname(assetsDir), { recursive: true, force: true });
});

async function send(
  target: string,
  options: { method?: string; headers?: Readonly<Record<string, string | undefined>> } = {},
): Promise<RawResponse & { problems: string[] }> {
  const method = options.method ?? 'GET';
  const headers = Object.fromEntries(
    Object.entries(options.headers ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const res = await request(api.baseUrl, target, { method, headers });
  const problems = contract.check({ method, target, ...res });
  return Object.assign(res, { problems });
}

it.each([
  { target: '/status.json', headers: auth(), status: 200 },
  { target: '/status.json', headers: { ...auth(), 'Accept-Encoding': 'br' }, status: 200 },
  { target: ARCHIVE, headers: { ...auth(), Range: 'bytes=0-16383' }, status: 206 },
  { target: ARCHIVE, headers: { ...auth(), Range: 'bytes=999999999-' }, status: 416 },
  { target: `/tiles/${TS}/7/10/20.png`, headers: auth(), status: 200 },
  {
    target: `/tiles/${TS}.json`,
    headers: { ...auth(), Origin: 'https://maps.example' },
    status: 200,
  },
  { target: '/tiles/202001010000.pmtiles', headers: auth(), status: 404 },
  { target: '/status.json', headers: {}, status: 401 },
  { target: '/status.json', method: 'PUT', headers: {}, status: 405 },
  {
    target: ARCHIVE,
    method: 'OPTIONS',
    headers: { Origin: 'https://maps.example', 'Access-Control-Request-Method': 'GET' },
    status: 204,
  },
  { target: '/openapi.json', headers: {}, status: 200 },
  { target: '/openapi.json', method: 'HEAD', headers: {}, status: 200 },
])('$method $target -> $status matches the description', async (c) => {
  const res = await send(c.target, c);
  expect({ status: res.status, problems: res.problems }).toEqual({
    status: c.status,
    problems: [],
  });
});

it('/openapi.json: no credentials, no rate-limit point, the built bytes, revalidated by ETag', async () => {
  const res = await send('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  expect(res.body.equals(await fs.readFile(path.join(assetsDir, 'openapi.json')))).toBe(true);
  expect(res.json()).toEqual(contract.document);
  const again = await send('/openapi.json', {
    headers: { 'If-None-Match': String(res.headers.etag) },
  });
  expect({ status: again.status, problems: again.problems }).toEqual({ status: 304, problems: [] });
});

describe('the HTML reference', () => {
  it('/reference redirects to /reference/', async () => {
    const res = await request(api.baseUrl, '/reference');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/reference/');
  });

  it('is served without credentials, with a policy that admits only its own origin', async () => {
    const res = await request(api.baseUrl, '/reference/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(res.headers['content-length']).toBe(String(res.body.length));
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+;/);
    // Scripts are admitted by hash only, never as any inline script.
    expect(csp.split('; ').find((d) => d.startsWith('script-src'))).not.toContain('unsafe');
    expect(csp).not.toMatch(/https?:/);
    const html = res.body.toString('utf8');
    expect(html).not.toContain('cdn.redoc.ly');
    for (const route of ['/status.json', '/tiles/{timestamp}.pmtiles', '/openapi.json'])
      expect(html).toContain(route);
  });

  it('HEAD and If-None-Match', async () => {
    const full = await request(api.baseUrl, '/reference/');
    const head = await request(api.baseUrl, '/reference/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(full.headers['content-length']);
    const again = await request(api.baseUrl, '/reference/', {
      headers: { 'If-None-Match': String(full.headers.etag) },
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('a reference never built is 503 with Retry-After, not a broken page', async () => {
    const unbuilt = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-unbuilt-'));
    const bare = await startEmbeddedApiWith(TS, sparseArchive(TS), { openApiAssetsDir: unbuilt });
    try {
      const res = await request(bare.baseUrl, '/reference/');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
      expect(res.json()).toEqual({ error: { code: 503, message: 'Service Unavailable' } });
    } finally {
      await bare.stop();
      await fs.rm(unbuilt, { recursive: true, force: true });
    }
  });
});

describe('pages go through the one evaluator and the one table of routes', () => {
  it('a page answers If-Match as the API does: 412 with the error record on a mismatch', async () => {
    const full = await request(api.baseUrl, '/reference/');
    const refused = await request(api.baseUrl, '/reference/', {
      headers: { 'If-Match': '"not-the-page"' },
    });
    expect(refused.status).toBe(412);
    expect(JSON.parse(refused.body.toString('utf8'))).toEqual({
      error: { code: 412, message: 'Precondition Failed' },
    });
    const matched = await request(api.baseUrl, '/reference/', {
      headers: { 'If-Match': String(full.headers.etag) },
    });
    expect(matched.status).toBe(200);
    const viewer = await request(api.baseUrl, '/viewer/config.json');
    expect(viewer.status).toBe(200);
  });

  it('records page requests under their route templates', async () => {
    await request(api.baseUrl, '/reference/');
    await request(api.baseUrl, '/viewer/config.json');
    await request(api.baseUrl, '/viewer/no-such-asset.js');
    await request(api.baseUrl, '/not-a-page');
    const metrics = (
      await request(`http://127.0.0.1:${api.replica.adminPort}`, '/metrics')
    ).body.toString('utf8');
    const routes = new Set(
      [...metrics.matchAll(/^radar_http_requests_total\{route="([^"]*)"/gm)].map((m) => m[1]),
    );
    for (const route of ['/reference/', '/viewer/config.json', '/viewer/:asset', 'unmatched'])
      expect(routes).toContain(route);
  });
});
