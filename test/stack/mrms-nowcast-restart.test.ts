/**
 * A restarted MRMS producer (`npm run mrms`, a real process, directory feed, nowcast on) makes
 * the forecasts of the first new frame after its restart: it converts none of the frames it
 * finds published, but reads back those of the last 10 minutes for the nowcast's echo images,
 * so the new frame has its earlier frame at once (before, the first forecasts came only ten
 * minutes of new frames later).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { movingReflectivityFile, movingTimestamp } from '../fixtures/moving-reflectivity';
import { startProducer, type ProducerProcess } from '../harness/mrms-producer';

jest.setTimeout(240_000);

const LEADS = [10, 20, 30, 40, 50, 60];
const PUBLISHED = 'radar_nowcast_cycles_total{outcome="published"}';
const CONVERTED = 'radar_mrms_frames_converted_total';

let root: string;
let day: string;
let api: EmbeddedApi;
let producer: ProducerProcess | undefined;

async function release(t: number): Promise<void> {
  const file = movingReflectivityFile(t);
  await fs.writeFile(path.join(day, `.${file.name}.part`), file.bytes);
  await fs.rename(path.join(day, `.${file.name}.part`), path.join(day, file.name));
}

const start = () =>
  startProducer(
    {
      MRMS_SOURCE: path.join(root, 'feed'),
      RADAR_DATA_DIR: api.dataDir,
      MRMS_BACKFILL: '10',
      MRMS_POLL_S: '1',
      MRMS_TYPE_PRODUCT: 'none',
      NOWCAST: '1',
    },
    root,
  );

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-restart-'));
  day = path.join(root, 'feed', '20240601');
  await fs.mkdir(day, { recursive: true });
  api = await startEmbeddedApi();
  for (let t = 0; t <= 5; t++) await release(t); // 12:00 .. 12:10
});

afterAll(async () => {
  await producer?.stop();
  await api?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

it('the first new frame after a restart gets its six forecasts', async () => {
  producer = await start();
  await producer.waitForValue(PUBLISHED, 1, 120_000); // the base 12:10
  expect(await producer.stop()).toBe(0);

  producer = await start();
  await producer.waitForValue('radar_mrms_frames_skipped_total', 6, 60_000); // all found published
  await release(6); // 12:12: its earlier frame, 12:02, was published before the restart
  await producer.waitForValue(CONVERTED, 1, 60_000);
  await producer.waitForValue(PUBLISHED, 1, 120_000);
  const base = movingTimestamp(6);
  const files = await fs.readdir(api.dataDir);
  expect(files.filter((f) => f.startsWith(`forecast-${base}-`)).sort()).toEqual(
    LEADS.map((lead) => `forecast-${base}-${String(lead).padStart(3, '0')}.pmtiles`),
  );
  // Nothing converted twice; the recalled frames are no bases of their own.
  expect(await producer.value(CONVERTED)).toBe(1);
  expect(await producer.value('radar_nowcast_failures_total{reason="error"}')).toBe(0);
  expect(await producer.value('radar_nowcast_failures_total{reason="sink"}')).toBe(0);
});
