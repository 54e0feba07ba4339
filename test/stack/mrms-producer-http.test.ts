/**
 * The producer following an HTTP directory listing, as NOAA's MRMS server publishes each
 * product (a local server with the same index-page shape, test/harness/mrms-http-directory.ts):
 * a listing that fails is retried with backoff, a listed file that is gone is skipped, and
 * the real sample is published into the data directory as 202304061200.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startMrmsDirectoryServer, type MrmsDirectoryServer } from '../harness/mrms-http-directory';
import { startProducer, type ProducerProcess } from '../harness/mrms-producer';
import { SAMPLE_TIME_MS, SAMPLE_TIMESTAMP, sampleFrameAt } from '../fixtures/mrms-frames';
import { mrmsSample, REFLECTIVITY_SAMPLE } from '../fixtures/mrms-sample';

jest.setTimeout(180_000);

const URL_PATH = '/data/2D/ReflectivityAtLowestAltitude/';
let root: string;
let server: MrmsDirectoryServer;
let producer: ProducerProcess | undefined;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-http-'));
  const served = path.join(root, 'served');
  await fs.mkdir(served);
  await fs.symlink(mrmsSample(REFLECTIVITY_SAMPLE), path.join(served, REFLECTIVITY_SAMPLE));
  const gone = sampleFrameAt(SAMPLE_TIME_MS + 120_000);
  await fs.writeFile(path.join(served, gone.name), gone.bytes);
  // NOAA keeps a `.latest` copy beside the dated files; it is not a frame of its own.
  await fs.writeFile(path.join(served, 'MRMS_ReflectivityAtLowestAltitude.latest.grib2.gz'), 'x');
  server = await startMrmsDirectoryServer({ dir: served, urlPath: URL_PATH });
  server.vanish(gone.name);
  server.failListings(2);
});

afterAll(async () => {
  await producer?.stop();
  await server?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

it('retries the failing listing, skips the vanished file and publishes the sample', async () => {
  const data = path.join(root, 'data');
  producer = await startProducer(
    { MRMS_SOURCE: server.url, MRMS_POLL_S: '1', RADAR_DATA_DIR: data },
    root,
  );
  await producer.waitForValue('radar_mrms_frames_converted_total', 1);
  // Two refused listings, then the vanished file's 404 (given up at once, no retry helps).
  expect(await producer.value('radar_mrms_failures_total{reason="source"}')).toBe(3);
  expect(server.requests.get(URL_PATH)).toBeGreaterThanOrEqual(3);
  expect(server.requests.get(`${URL_PATH}${REFLECTIVITY_SAMPLE}`)).toBe(1);
  expect(
    server.requests.get(`${URL_PATH}MRMS_ReflectivityAtLowestAltitude.latest.grib2.gz`),
  ).toBeUndefined();
  // Beside the archive only the hidden verdict file (docs/mrms.md, "Verdicts on files").
  expect((await fs.readdir(data)).filter((f) => !f.startsWith('.'))).toEqual([
    `${SAMPLE_TIMESTAMP}.pmtiles`,
  ]);
  expect(producer.proc.stdout()).toContain('mrms source listing failed');
  expect(await producer.stop()).toBe(0);
  producer = undefined;
});
