/**
 * `npm run mrms` (the built producer, a real process) following a local directory feed of a
 * short simulated reflectivity sequence (storms moving east), with the nowcast on, publishing
 * into an embedded replica's data directory: after the newest-first backfill it publishes the
 * six forecast frames of the newest base beside the observed frames, then those of each new
 * frame; the independent `pmtiles` reader finds the contract's metadata in them (kind,
 * forecast {base, lead, valid, leads, method}, the valid time as timestamp, a name saying
 * forecast, the motion field eastward), and the replica lists them in `/status.json` and
 * serves them under `/forecasts/`. A gap (no frame 10
 * minutes before a base) skips that base's cycle with its reason in the log and in
 * `radar_nowcast_failures_total` on the admin port, and the producer goes on.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FetchSource, PMTiles } from 'pmtiles';
import { auth, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { waitFor } from '../harness/wait';
import { createBufferSource } from '../fixtures/buffer-source';
import {
  MOVING_T0,
  movingReflectivityFile,
  movingTimestamp,
} from '../fixtures/moving-reflectivity';
import { startProducer, type ProducerProcess } from '../harness/mrms-producer';
import { decodeMotionComponent } from '../../src/nowcast/motion-encoding';

jest.setTimeout(240_000);

const LEADS = [10, 20, 30, 40, 50, 60];
const PUBLISHED = 'radar_nowcast_cycles_total{outcome="published"}';
const failures = (reason: string) => `radar_nowcast_failures_total{reason="${reason}"}`;

let root: string;
let day: string;
let data: string;
let producer: ProducerProcess | undefined;
let api: EmbeddedApi;

async function release(t: number): Promise<void> {
  const file = movingReflectivityFile(t);
  // Written aside and renamed, as a downloader does: the feed never sees half a file.
  await fs.writeFile(path.join(day, `.${file.name}.part`), file.bytes);
  await fs.rename(path.join(day, `.${file.name}.part`), path.join(day, file.name));
}

async function metadataOf(name: string): Promise<Record<string, unknown>> {
  const bytes = await fs.readFile(path.join(data, name));
  return (await new PMTiles(createBufferSource(bytes, name)).getMetadata()) as Record<
    string,
    unknown
  >;
}

const forecastNames = (base: string) =>
  LEADS.map((lead) => `forecast-${base}-${String(lead).padStart(3, '0')}.pmtiles`);

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-nowcast-'));
  day = path.join(root, 'feed', '20240601');
  await fs.mkdir(day, { recursive: true });
  api = await startEmbeddedApi();
  data = api.dataDir;
  for (let t = 0; t <= 5; t++) await release(t); // 12:00 .. 12:10
});

afterAll(async () => {
  await producer?.stop();
  await api?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

it('publishes the six forecast frames of the newest base after the backfill, with the contract’s metadata', async () => {
  producer = await startProducer(
    {
      MRMS_SOURCE: path.join(root, 'feed'),
      RADAR_DATA_DIR: data,
      MRMS_BACKFILL: '10',
      MRMS_POLL_S: '1',
      MRMS_TYPE_PRODUCT: 'none',
      NOWCAST: '1',
    },
    root,
  );
  await producer.waitForValue(PUBLISHED, 1, 120_000);
  const base = movingTimestamp(5); // 202406011210
  const files = (await fs.readdir(data)).filter((f) => f.endsWith('.pmtiles')).sort();
  expect(files).toEqual([
    ...[0, 1, 2, 3, 4, 5].map((t) => `${movingTimestamp(t)}.pmtiles`),
    ...forecastNames(base),
  ]);
  // The backfilled older frames are no bases: superseded, counted once each (two convert at
  // once, so the count may trail the forecasts a little); no gap.
  await producer.waitForValue('radar_nowcast_cycles_total{outcome="superseded"}', 5, 30_000);
  expect(await producer.value('radar_nowcast_cycles_total{outcome="superseded"}')).toBe(5);
  expect(await producer.value(failures('superseded'))).toBe(5);
  expect(await producer.value(failures('missing-earlier-frame'))).toBe(0);
  expect(await producer.value('radar_nowcast_cycle_seconds_count')).toBe(1);

  const observed = await metadataOf(`${base}.pmtiles`);
  expect(observed).toMatchObject({ kind: 'observed', timestamp: base });
  expect(observed.forecast).toBeUndefined();
  for (const lead of LEADS) {
    const valid = movingTimestamp(5 + lead / 2);
    const metadata = await metadataOf(`forecast-${base}-${String(lead).padStart(3, '0')}.pmtiles`);
    expect(metadata).toMatchObject({
      kind: 'forecast',
      timestamp: valid,
      validTime: new Date(MOVING_T0 + (10 + lead) * 60_000).toISOString(),
      forecast: {
        base,
        lead,
        valid,
        leads: LEADS,
        method: expect.stringContaining('nowcast'),
      },
      product: observed.product,
      // The same renderer and palette as the observed frame.
      renderer: observed.renderer,
      palette: observed.palette,
      units: 'dBZ',
      precipitationType: { typed: false },
    });
    expect(metadata.name).toContain(`forecast +${lead} min from 2024-06-01T12:10Z`);
    expect(metadata.description).toContain('not observed');
  }
  // The motion field: the same in every lead, storms moving 0.02 degrees east per 2 minutes.
  const first = await metadataOf(forecastNames(base)[0]!);
  const last = await metadataOf(forecastNames(base)[5]!);
  expect(last.motion).toEqual(first.motion);
  const motion = first.motion as Parameters<typeof decodeMotionComponent>[0];
  expect(motion).toMatchObject({ encoding: 'int8-base64', unit: 'degrees per minute' });
  expect(motion.width).toBeLessThanOrEqual(128);
  const median = (values: Float64Array) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  expect(median(decodeMotionComponent(motion, 'u'))).toBeGreaterThan(0.007);
  expect(median(decodeMotionComponent(motion, 'u'))).toBeLessThan(0.013);
  expect(Math.abs(median(decodeMotionComponent(motion, 'v')))).toBeLessThan(0.003);

  // The replica lists the base's six leads and serves them under /forecasts/.
  const status = async () =>
    (await request(api.baseUrl, '/status.json', { headers: auth() })).json() as {
      latest: string;
      forecasts: Array<{ base: string; lead: number; valid: string }>;
    };
  await waitFor(
    async () => (await status()).forecasts.length === LEADS.length,
    30_000,
    'the six forecasts listed',
    100,
  );
  expect(await status()).toMatchObject({
    latest: base,
    forecasts: LEADS.map((lead) => ({ base, lead, valid: movingTimestamp(5 + lead / 2) })),
  });
  const served = new PMTiles(
    new FetchSource(`${api.baseUrl}/forecasts/${base}/30.pmtiles`, new Headers(auth())),
  );
  expect(await served.getMetadata()).toMatchObject({
    kind: 'forecast',
    forecast: { base, lead: 30, valid: movingTimestamp(20) },
  });
});

it('each new frame gets its forecasts; a gap skips that base with its reason, logged and counted', async () => {
  await release(6); // 12:12: its earlier frame (12:02) is kept from the backfill
  await producer!.waitForValue(PUBLISHED, 2, 120_000);
  expect(await fs.readdir(data)).toEqual(expect.arrayContaining(forecastNames(movingTimestamp(6))));

  await release(8); // 12:16 (12:14 never comes): its earlier frame 12:06 is there
  await producer!.waitForValue(PUBLISHED, 3, 120_000);
  await release(12); // 12:24: no frame at 12:14, 10 minutes before it
  await producer!.waitForValue('radar_mrms_frames_converted_total', 9, 60_000);
  await release(13); // 12:26: settles 12:24 as a gap, and runs on 12:16
  await producer!.waitForValue(failures('missing-earlier-frame'), 1, 120_000);
  await producer!.waitForValue(PUBLISHED, 4, 120_000);
  expect(await producer!.value('radar_nowcast_cycles_total{outcome="skipped"}')).toBe(1);
  expect(await producer!.value(failures('error'))).toBe(0);
  const files = await fs.readdir(data);
  expect(files.filter((f) => f.startsWith(`forecast-${movingTimestamp(12)}`))).toEqual([]);
  expect(files).toEqual(expect.arrayContaining(forecastNames(movingTimestamp(13))));

  const skipped = producer!.proc
    .stdout()
    .split('\n')
    .filter((line) => line.includes('"nowcast cycle skipped"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(skipped).toEqual([
    expect.objectContaining({
      base: movingTimestamp(12),
      reason: 'missing-earlier-frame',
      detail: 'no frame at 2024-06-01T12:14:00.000Z, 10 min before the base',
    }),
  ]);
  expect(producer!.proc.child.exitCode).toBeNull();
});
