/**
 * The client library against the running service with a published nowcast: `status()` lists
 * the forecast frames, `timeline()` puts them after the observed frames with URLs the service
 * answers, a forecast frame's TileJSON comes back with its forecast record and decoded motion
 * field, and its archive reads through `openArchive(key)` with both credentials.
 */
import { createRadarClient } from '../../../src/client/radar-client';
import { buildArchive } from '../../fixtures/archives';
import { APPS, KEYS, startEmbeddedApi, type EmbeddedApi } from '../../harness/embedded-api';
import { DEFAULT_LEADS, forecastCycleArchives, TEST_METHOD } from '../../harness/forecast-archives';
import { recentTimestamps } from '../../harness/timestamps';

let api: EmbeddedApi;
const [newer, base] = recentTimestamps(2);

const client = () =>
  createRadarClient({ baseUrl: api.baseUrl, credentials: { apiKey: KEYS.good, appId: APPS.web } });

beforeAll(async () => {
  api = await startEmbeddedApi();
  for (const ts of [base!, newer!]) {
    await api.publish(ts, buildArchive(ts, 1));
    await api.waitForListed(ts);
  }
  for (const [name, bytes] of forecastCycleArchives(base!))
    await api.publish(name.replace(/\.pmtiles$/, ''), bytes);
  const started = Date.now();
  while ((await client().status()).forecasts.length < DEFAULT_LEADS.length) {
    if (Date.now() - started > 10_000) throw new Error('forecasts not listed within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}, 30_000);
afterAll(() => api.stop());

it('lists the forecasts and puts them after the observed frames, each marked', async () => {
  const status = await client().status();
  expect(status.timestamps).toEqual([newer, base]);
  expect(status.forecasts.map((f) => [f.base, f.lead])).toEqual(
    DEFAULT_LEADS.map((lead) => [base, lead]),
  );
  const timeline = client().timeline(status);
  expect(timeline.map((f) => f.kind)).toEqual([
    'observed',
    'observed',
    ...DEFAULT_LEADS.map(() => 'forecast'),
  ]);
  const first = timeline[2]!;
  expect(first).toMatchObject({ kind: 'forecast', base, lead: 10 });
  expect(first.archiveUrl).toBe(`${api.baseUrl}/forecasts/${base}/10.pmtiles`);
  expect(timeline.every((f, i) => i === 0 || f.validMs > timeline[i - 1]!.validMs)).toBe(true);
});

it('reads a forecast frame: TileJSON with forecast and motion, archive and tiles', async () => {
  const status = await client().status();
  const frame = client().timeline(status).at(-1)!;
  const doc = await client().tileJson(frame.key);
  expect(doc.forecast).toEqual({
    base,
    lead: 60,
    valid: frame.valid,
    leads: [...DEFAULT_LEADS],
    method: TEST_METHOD,
  });
  expect(doc.motion).toMatchObject({ width: 4, height: 2, west: -125, north: 50 });
  expect(doc.motion!.u[0]).toBeCloseTo(0.05, 6); // the test field's steady drift east
  expect(doc.tiles[0]).toContain(`/forecasts/${base}/60/`);

  const reader = client().openArchive(frame.key);
  const metadata = (await reader.getMetadata()) as { kind?: string };
  expect(metadata.kind).toBe('forecast');
  const tile = await client().tile(frame.key, 0, 0, 0);
  expect(tile.type).toBe('image/png');
  // The observed frame's TileJSON carries neither.
  const observed = await client().tileJson(newer!);
  expect(observed.forecast).toBeUndefined();
  expect(observed.motion).toBeUndefined();
});
