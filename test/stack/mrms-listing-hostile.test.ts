/**
 * Index pages built to defeat a parser, served to the real producer as its HTTP directory
 * listing, each as large as a listing may be (8 MiB): tags that never close, attributes that
 * never end, comments and character references that never finish. Reading a page must cost
 * time in proportion to its length (a backtracking parser took 5.9 s on 128 KiB of `<a ` and
 * would take hours on 8 MiB), so the producer reads all of them and then publishes the real
 * file the next listing names. The bound on the wait is generous (minutes) and only there so
 * a quadratic parser fails rather than hangs; the figure that matters, the longest the
 * producer's event loop was blocked (its admin `/healthz` answer time while it parsed), is
 * printed, not asserted.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startMrmsDirectoryServer, type MrmsDirectoryServer } from '../harness/mrms-http-directory';
import { startProducer, type ProducerProcess } from '../harness/mrms-producer';
import { request } from '../harness/http-client';
import { SAMPLE_TIMESTAMP } from '../fixtures/mrms-frames';
import { mrmsSample, REFLECTIVITY_SAMPLE } from '../fixtures/mrms-sample';

jest.setTimeout(240_000);

const URL_PATH = '/data/2D/ReflectivityAtLowestAltitude/';
const CAP = 8 * 1024 * 1024;
const fill = (unit: string, head = '') =>
  head + unit.repeat(Math.floor((CAP - head.length) / unit.length));
const HOSTILE: Readonly<Record<string, string>> = {
  'open tags': fill('<a '),
  'empty attributes': fill('<a href='),
  'unterminated quote': fill('x', '<a href="'),
  'unterminated references': fill('&#', '<a href="'),
  comments: fill('<!--'),
  'nested openers': fill('<'),
};

let root: string;
let server: MrmsDirectoryServer;
let producer: ProducerProcess | undefined;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-hostile-'));
  const served = path.join(root, 'served');
  await fs.mkdir(served);
  await fs.symlink(mrmsSample(REFLECTIVITY_SAMPLE), path.join(served, REFLECTIVITY_SAMPLE));
  server = await startMrmsDirectoryServer({ dir: served, urlPath: URL_PATH });
  server.serveListings(Object.values(HOSTILE));
});

afterAll(async () => {
  await producer?.stop();
  await server?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

it('reads every hostile page in linear time and then publishes the file the listing names', async () => {
  const data = path.join(root, 'data');
  producer = await startProducer(
    { MRMS_SOURCE: server.url, MRMS_POLL_S: '1', RADAR_DATA_DIR: data },
    root,
  );
  const admin = `http://127.0.0.1:${producer.adminPort}`;
  let longestMs = 0;
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const began = performance.now();
      await request(admin, '/healthz').catch(() => undefined);
      longestMs = Math.max(longestMs, performance.now() - began);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    await producer.waitForValue('radar_mrms_frames_converted_total', 1, 200_000);
  } finally {
    probing = false;
    await probe;
  }
  expect(server.requests.get(URL_PATH)).toBeGreaterThan(Object.keys(HOSTILE).length);
  // Hidden files beside the archives (the producer's verdict file) are not archives.
  expect((await fs.readdir(data)).filter((f) => !f.startsWith('.'))).toEqual([
    `${SAMPLE_TIMESTAMP}.pmtiles`,
  ]);
  console.log(
    `hostile listings: ${Object.keys(HOSTILE).length} pages of ${CAP} bytes read; ` +
      `longest /healthz answer while parsing ${longestMs.toFixed(0)} ms`,
  );
  expect(await producer.stop()).toBe(0);
  producer = undefined;
});
