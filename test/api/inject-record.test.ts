/**
 * `inject` runs the real writer's tail, as a socket request does: each in-process request is
 * recorded once, in the request log line, the request metrics and the per-key usage, with the
 * status, route and body bytes it was answered with (HEAD: no body, 0 bytes).
 */
import type { UsageReport } from '../../src/domain/usage-report';
import { buildArchive } from '../fixtures/archives';
import { auth, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { sample, scrape } from '../harness/fault-stack';
import { request } from '../harness/http-client';
import { loggedLines } from '../harness/log-lines';
import { waitFor } from '../harness/wait';

const TS = '202611221400';
const archive = buildArchive(TS, 2);
const { lines, logger } = loggedLines();
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApi({ usageFlushMs: 100, logger });
  await api.publish(TS, archive);
  await api.waitForListed(TS);
});
afterAll(() => api.stop());

const requestsOf = (text: string, route: string, method: string, status: string) =>
  sample(text, 'radar_http_requests_total', { route, method, status }) ?? 0;

it("each injected request is one log line, one metric count and its key's usage", async () => {
  const tiles = `/tiles/${TS}.pmtiles`;
  const before = await scrape(api.replica.adminPort);
  const got = await api.inject(tiles, { headers: auth() });
  const head = await api.inject(tiles, { method: 'HEAD', headers: auth() });
  const missing = await api.inject('/tiles/202001010000.pmtiles', {
    headers: { ...auth(), 'X-Request-Id': 'inj-404' },
  });
  expect([got.status, got.body.length, head.status, head.body.length, missing.status]).toEqual([
    200,
    archive.length,
    200,
    0,
    404,
  ]);
  expect(head.headers['content-length']).toBe(String(archive.length));

  const after = await scrape(api.replica.adminPort);
  const added = (route: string, method: string, status: string) =>
    requestsOf(after, route, method, status) - requestsOf(before, route, method, status);
  expect(added('/tiles/:timestamp.pmtiles', 'GET', '200')).toBe(1);
  expect(added('/tiles/:timestamp.pmtiles', 'HEAD', '200')).toBe(1);
  expect(added('/tiles/:timestamp.pmtiles', 'GET', '404')).toBe(1);
  const bytes = (text: string) =>
    sample(text, 'radar_http_response_bytes_total', {
      route: '/tiles/:timestamp.pmtiles',
      method: 'GET',
      status: '200',
    }) ?? 0;
  expect(bytes(after) - bytes(before)).toBe(archive.length);

  const logged = lines.filter((line) => line.msg === 'request');
  expect(missing.headers['x-request-id']).toBe('inj-404');
  expect(logged.find((line) => line.requestId === 'inj-404')).toMatchObject({
    method: 'GET',
    route: '/tiles/:timestamp.pmtiles',
    status: 404,
    keyId: 'good',
    ip: '127.0.0.1',
  });
  expect(
    logged.filter((line) => line.route === '/tiles/:timestamp.pmtiles' && line.status === 200),
  ).toEqual([
    expect.objectContaining({ method: 'GET', keyId: 'good', bytes: archive.length }),
    expect.objectContaining({ method: 'HEAD', keyId: 'good', bytes: 0 }),
  ]);

  // Usage counts all three under the key: the 404 too (docs/usage.md).
  const admin = `http://127.0.0.1:${api.replica.adminPort}`;
  let report: UsageReport | undefined;
  await waitFor(
    async () => {
      report = (await request(admin, '/usage?since=2h')).json<UsageReport>();
      return report.keys.find((k) => k.key === 'good')?.requests === 3;
    },
    10_000,
    'injected usage flushed',
    50,
  );
  const good = report!.keys.find((k) => k.key === 'good')!;
  expect(good.routes['/tiles/:timestamp.pmtiles']).toMatchObject({
    requests: 3,
    bytes: archive.length + missing.body.length,
  });
  expect(good.statuses).toEqual({ '200': 2, '404': 1 });
});
