/**
 * The embedded service (`npm start`'s shape: a replica with the simulator in-process and
 * in-process ingest) with the nowcast on: after its start-up frames the simulator's newest
 * frame gets its six forecast frames, which the replica lists in `/status.json` ("forecasts")
 * and serves under `/forecasts/`, and whose cycle is counted on the replica's admin port.
 */
import { FetchSource, PMTiles } from 'pmtiles';
import { auth, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { seriesValue } from '../harness/mrms-producer';
import { waitFor } from '../harness/wait';

jest.setTimeout(180_000);

const LEADS = [10, 20, 30, 40, 50, 60];
let api: EmbeddedApi | undefined;

afterAll(async () => {
  await api?.stop();
});

it('lists and serves the in-process simulator’s forecasts, and counts the cycle', async () => {
  api = await startEmbeddedApi({
    env: {
      RADAR_SIMULATE: '1',
      RADAR_SIM_BACKFILL: '6',
      RADAR_SIM_MAX_ZOOM: '3',
      RADAR_STALE_AFTER_S: '3600',
      NOWCAST: '1',
    },
  });
  const status = async () =>
    (await request(api!.baseUrl, '/status.json', { headers: auth() })).json() as {
      latest: string | null;
      timestamps: string[];
      forecasts: Array<{ base: string; lead: number; valid: string }>;
    };
  await waitFor(
    async () => (await status()).forecasts?.length === LEADS.length,
    150_000,
    'six forecasts listed',
    200,
  );
  const listed = await status();
  const base = listed.forecasts[0]!.base;
  // The base is an observed frame of the start-up (the newest unless a new slot began since).
  expect(listed.timestamps).toContain(base);
  expect(listed.forecasts.map((f) => f.lead)).toEqual(LEADS);
  expect(listed.timestamps.some((t) => t.startsWith('forecast'))).toBe(false);

  const reader = new PMTiles(
    new FetchSource(`${api.baseUrl}/forecasts/${base}/60.pmtiles`, new Headers(auth())),
  );
  expect(await reader.getMetadata()).toMatchObject({
    kind: 'forecast',
    forecast: { base, lead: 60, leads: LEADS },
    generator: 'radar-tiles simulator 1',
  });

  const metrics = (
    await request(`http://127.0.0.1:${api.replica.adminPort}`, '/metrics')
  ).body.toString();
  expect(seriesValue(metrics, 'radar_nowcast_cycles_total{outcome="published"}')).toBeGreaterThan(
    0,
  );
  expect(seriesValue(metrics, 'radar_nowcast_failures_total{reason="error"}')).toBe(0);
});
