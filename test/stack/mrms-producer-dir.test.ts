/**
 * `npm run mrms` (the built producer, a real process) following a local directory laid out
 * like NOAA's feed (day folders of `MRMS_*.grib2.gz`), publishing into the data directory of
 * an embedded replica: the real NOAA sample becomes 202304061200, the replica's ingest lists
 * it, `/status.json`, the archive and z/x/y tiles serve it and the `pmtiles` reader reads it
 * back; a corrupt file is counted and skipped; a second run publishes nothing new.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FetchSource, PMTiles } from 'pmtiles';
import { auth, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { startProducer, type ProducerProcess } from '../harness/mrms-producer';
import { countPalettePixels, decodePng } from '../harness/palette-pixels';
import { corruptFrameAt, SAMPLE_TIMESTAMP } from '../fixtures/mrms-frames';
import { mrmsSample, REFLECTIVITY_SAMPLE } from '../fixtures/mrms-sample';

jest.setTimeout(180_000);

const CONVERTED = 'radar_mrms_frames_converted_total';
const SKIPPED = 'radar_mrms_frames_skipped_total';
const BAD = 'radar_mrms_failures_total{reason="bad-file"}';

let root: string;
let feed: string;
let api: EmbeddedApi;
let producer: ProducerProcess | undefined;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-dir-'));
  feed = path.join(root, 'feed');
  const day = path.join(feed, '20230406');
  await fs.mkdir(day, { recursive: true });
  // The real sample (copied: a link leading out of the feed is refused), a corrupt file after it.
  await fs.copyFile(mrmsSample(REFLECTIVITY_SAMPLE), path.join(day, REFLECTIVITY_SAMPLE));
  const corrupt = corruptFrameAt(Date.UTC(2023, 3, 6, 12, 2, 39));
  await fs.writeFile(path.join(day, corrupt.name), corrupt.bytes);
  // Files the follower must ignore: another product, a partial download.
  await fs.writeFile(path.join(day, 'MRMS_PrecipFlag_00.00_20230406-120039.grib2.gz'), 'x');
  await fs.writeFile(path.join(day, `.${REFLECTIVITY_SAMPLE}.part`), 'x');
  api = await startEmbeddedApi();
});

afterAll(async () => {
  await producer?.stop();
  await api?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

const env = () => ({ MRMS_SOURCE: feed, RADAR_DATA_DIR: api.dataDir, MRMS_BACKFILL: '10' });

it('publishes the sample as 202304061200, counts the corrupt file, and the replica serves it', async () => {
  producer = await startProducer(env(), root);
  await producer.waitForValue(CONVERTED, 1);
  await producer.waitForValue(BAD, 1);
  expect(await producer.value('radar_mrms_failures_total{reason="not-reflectivity"}')).toBe(0);
  expect(await producer.value('radar_mrms_leader')).toBe(1); // alone: no Redis, no lease
  expect((await fs.readdir(api.dataDir)).filter((f) => f.endsWith('.pmtiles'))).toEqual([
    `${SAMPLE_TIMESTAMP}.pmtiles`,
  ]);
  expect(producer.proc.stdout()).toContain('mrms file skipped');

  await api.waitForListed(SAMPLE_TIMESTAMP, 10_000);
  const status = await request(api.baseUrl, '/status.json', { headers: auth() });
  expect(status.status).toBe(200);
  expect(status.json()).toEqual({
    healthy: false, // a 2023 frame is older than RADAR_STALE_AFTER_S
    latest: SAMPLE_TIMESTAMP,
    timestamps: [SAMPLE_TIMESTAMP],
    forecasts: [], // the producer of this test runs without the nowcast
  });

  const url = `${api.baseUrl}/tiles/${SAMPLE_TIMESTAMP}.pmtiles`;
  const whole = await request(api.baseUrl, `/tiles/${SAMPLE_TIMESTAMP}.pmtiles`, {
    headers: auth(),
  });
  expect(whole.status).toBe(200);
  expect(whole.headers['content-type']).toBe('application/vnd.pmtiles');
  const reader = new PMTiles(new FetchSource(url, new Headers(auth())));
  const header = await reader.getHeader();
  expect([header.minZoom, header.maxZoom]).toEqual([0, 7]);
  expect([header.minLon, header.minLat, header.maxLon, header.maxLat]).toEqual([-130, 20, -60, 55]);
  expect(await reader.getMetadata()).toMatchObject({
    product: 'MRMS ReflectivityAtLowestAltitude 00.50',
    timestamp: SAMPLE_TIMESTAMP,
    validTime: '2023-04-06T12:00:39.000Z',
    source: REFLECTIVITY_SAMPLE,
  });

  // z/x/y: the z6 tile over central Texas, on the squall line, served by the tile
  // route with the very bytes the archive holds, and drawn in the palette's colours.
  const tile = await reader.getZxy(6, 14, 26);
  expect(tile).toBeDefined();
  const served = await request(api.baseUrl, `/tiles/${SAMPLE_TIMESTAMP}/6/14/26.png`, {
    headers: auth(),
  });
  expect(served.status).toBe(200);
  expect(served.headers['content-type']).toBe('image/png');
  expect(served.body.equals(Buffer.from(tile!.data))).toBe(true);
  expect(countPalettePixels(decodePng(served.body)).total).toBeGreaterThan(5000);
});

it('a second run converts and uploads nothing: the frame is found published', async () => {
  await producer!.stop();
  producer = undefined;
  const file = path.join(api.dataDir, `${SAMPLE_TIMESTAMP}.pmtiles`);
  const before = await fs.stat(file);
  const again = await startProducer(env(), root);
  producer = again;
  await again.waitForValue(SKIPPED, 1);
  // The corrupt file (newer, so handled first in the pass) was refused by the first run, and
  // the verdict outlives it beside the archives: it is neither converted nor counted again.
  expect(await again.value(BAD)).toBe(0);
  expect(await again.value(CONVERTED)).toBe(0);
  const verdicts = JSON.parse(
    await fs.readFile(path.join(api.dataDir, '.mrms-verdicts.json'), 'utf8'),
  );
  expect(Object.values(verdicts)).toEqual([
    expect.objectContaining({ refused: expect.any(String) }),
  ]);
  const after = await fs.stat(file);
  expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  expect((await fs.readdir(api.dataDir)).filter((f) => !f.startsWith('.'))).toEqual([
    `${SAMPLE_TIMESTAMP}.pmtiles`,
  ]);
  expect(await again.stop()).toBe(0);
  producer = undefined;
});
