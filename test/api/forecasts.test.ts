/**
 * Forecast frames in-process through an embedded replica (directory ingest, memory catalogs):
 * `/status.json`'s `forecasts` field (the listed base in lead order, `latest` and `timestamps`
 * unchanged), the archive route with the archive contract (ranges, validators, HEAD, one point
 * per request), TileJSON carrying `forecast` and `motion`, scheme routes, 400 for malformed
 * bases and leads, 404 for unknown ones, and the observed routes refusing a forecast key.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { forecastValidTimestamp } from '../../src/domain/forecast-frames';
import { readArchiveMetadata } from '../../src/pmtiles/archive-metadata';
import { auth, type EmbeddedApi, startEmbeddedApi } from '../harness/embedded-api';
import { buildArchive } from '../fixtures/archives';
import { forecastCycleArchives } from '../harness/forecast-archives';
import { recentTimestamp } from '../harness/timestamps';
import { waitFor } from '../harness/wait';

jest.setTimeout(30_000);

const BASE = recentTimestamp(1);
const OLDER = recentTimestamp(2);
const LEADS = [10, 20, 30];
const frames = forecastCycleArchives(BASE, { leads: LEADS });
const archive30 = frames[2]![1];
let api: EmbeddedApi;
const get = (p: string, headers: Record<string, string> = {}, method = 'GET') =>
  api.inject(p, { method, headers: { ...auth(), ...headers } });
const status = async () =>
  (await get('/status.json')).json<{
    latest: string;
    timestamps: string[];
    forecasts: unknown[];
  }>();

beforeAll(async () => {
  api = await startEmbeddedApi({ env: { RADAR_FORECAST_GRACE_S: '3600' } });
  await api.publish(BASE, buildArchive(BASE));
  await api.waitForListed(BASE);
  for (const [name, bytes] of frames) await fs.writeFile(path.join(api.dataDir, name), bytes);
  await waitFor(async () => (await status()).forecasts.length === 3, 10_000, 'forecasts listed');
});
afterAll(() => api?.stop());

it('lists the base in lead order; latest and timestamps stay the observed frames', async () => {
  const doc = await status();
  expect(doc.latest).toBe(BASE);
  expect(doc.timestamps).toEqual([BASE]);
  expect(doc.forecasts).toEqual(
    LEADS.map((lead) => ({
      base: BASE,
      lead,
      valid: forecastValidTimestamp({ base: BASE, lead }),
    })),
  );
});

it('serves the archive under the archive contract: whole, range, validators, HEAD', async () => {
  const whole = await get(`/forecasts/${BASE}/30.pmtiles`);
  expect(whole.status).toBe(200);
  expect(whole.body.equals(archive30)).toBe(true);
  expect(whole.headers['content-type']).toBe('application/vnd.pmtiles');
  expect(whole.headers['accept-ranges']).toBe('bytes');
  expect(whole.headers['cache-control']).toBe('private, max-age=31536000, immutable');
  expect(whole.headers.etag).toMatch(/^"[^"]+"$/);
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
    expect(whole.headers[h]).toMatch(/^[0-9]+$/);
  const range = await get(`/forecasts/${BASE}/30.pmtiles`, { Range: 'bytes=0-126' });
  expect(range.status).toBe(206);
  expect(range.headers['content-range']).toBe(`bytes 0-126/${archive30.length}`);
  expect(range.body.equals(archive30.subarray(0, 127))).toBe(true);
  const again = await get(`/forecasts/${BASE}/30.pmtiles`, {
    'If-None-Match': String(whole.headers.etag),
  });
  expect(again.status).toBe(304);
  const head = await get(`/forecasts/${BASE}/30.pmtiles`, {}, 'HEAD');
  expect([head.status, head.body.length, head.headers['content-length']]).toEqual([
    200,
    0,
    String(archive30.length),
  ]);
  const remaining = Number(head.headers['x-ratelimit-remaining']);
  const next = await get(`/forecasts/${BASE}/10.pmtiles`, {}, 'HEAD');
  expect(Number(next.headers['x-ratelimit-remaining'])).toBe(remaining - 1);
});

it('TileJSON names the forecast tiles and carries the forecast and motion objects', async () => {
  const res = await get(`/forecasts/${BASE}/30.json`);
  expect(res.status).toBe(200);
  const doc = res.json<Record<string, unknown>>();
  const metadata = readArchiveMetadata(archive30);
  expect(doc.tiles).toEqual([`${api.baseUrl}/forecasts/${BASE}/30/{z}/{x}/{y}.png`]);
  expect(doc.forecast).toEqual(metadata.forecast);
  expect(doc.motion).toEqual(metadata.motion);
  expect(doc.name).toBe(metadata.name);
  const scheme = await get(`/forecasts/${BASE}/30/cividis.json`);
  expect(scheme.status).toBe(200);
  expect(scheme.json<{ tiles: string[] }>().tiles).toEqual([
    `${api.baseUrl}/forecasts/${BASE}/30/cividis/{z}/{x}/{y}.png`,
  ]);
});

it('serves tiles and scheme tiles of the frame', async () => {
  const plain = await get(`/forecasts/${BASE}/30/0/0/0.png`);
  expect(plain.status).toBe(200);
  expect(plain.headers['content-type']).toBe('image/png');
  const dark = await get(`/forecasts/${BASE}/30/cividis/0/0/0.png`);
  expect(dark.status).toBe(200);
  expect(dark.headers.etag).not.toBe(plain.headers.etag);
  expect((await get(`/forecasts/${BASE}/30/nosuch/0/0/0.png`)).status).toBe(400);
});

it.each([
  ['a lead with a leading zero', `/forecasts/${BASE}/030.pmtiles`],
  ['lead 0', `/forecasts/${BASE}/0.pmtiles`],
  ['a lead beyond a day', `/forecasts/${BASE}/1441.json`],
  ['a signed lead', `/forecasts/${BASE}/+30/0/0/0.png`],
  ['a short base', '/forecasts/20261128/30.pmtiles'],
  ['a base that is no date', '/forecasts/202613011200/30.json'],
  ['the observed route with a forecast key', `/tiles/forecast-${BASE}-030.pmtiles`],
  ['the observed TileJSON with a forecast key', `/tiles/forecast-${BASE}-030.json`],
  ['the observed tile with a forecast key', `/tiles/forecast-${BASE}-030/0/0/0.png`],
])('400 for %s', async (_label, url) => {
  const res = await get(url);
  expect(res.status).toBe(400);
  expect(res.json()).toEqual({ error: { code: 400, message: 'Bad Request' } });
});

it.each([
  ['an unknown lead', `/forecasts/${BASE}/40.pmtiles`],
  ['an unknown base', `/forecasts/${OLDER}/30.json`],
  ['an unknown base, tile', `/forecasts/${OLDER}/30/0/0/0.png`],
])('404 for %s', async (_label, url) => {
  const res = await get(url);
  expect(res.status).toBe(404);
  expect(res.json()).toEqual({ error: { code: 404, message: 'Not Found' } });
});

it('needs credentials like every archive route', async () => {
  const res = await api.inject(`/forecasts/${BASE}/30.pmtiles`);
  expect(res.status).toBe(401);
  expect(res.headers['x-ratelimit-limit']).toBeUndefined();
});
