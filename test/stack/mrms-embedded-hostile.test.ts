/**
 * `RADAR_SOURCE=mrms npm start` (the built embedded entry point, a real process) following a
 * hostile directory: a link to /dev/zero, a FIFO, links to `.` and `/`, and a 503-byte file
 * that is the CONUS grid full of echo, beside the real NOAA sample. The API keeps answering
 * (`/healthz`, `/status.json`) while the producer works through them, the sample's frame is published and
 * listed (the CONUS file carries the same valid time: whichever is converted first names it),
 * the refused entries are counted, SIGTERM ends the process cleanly, and its peak RSS (the API and
 * its render worker together) stays under a fixed ceiling. The figure is printed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { conusPng32 } from '../fixtures/hostile-grib2';
import { mrmsFileName, SAMPLE_TIME_MS, SAMPLE_TIMESTAMP } from '../fixtures/mrms-frames';
import { mrmsSample, REFLECTIVITY_SAMPLE } from '../fixtures/mrms-sample';
import { request } from '../harness/http-client';
import { seriesValue } from '../harness/mrms-producer';
import { PEAK_RSS_OPTIONS, peakRssMib } from '../harness/peak-rss';
import { startApi } from '../harness/spawned-api';
import { waitFor } from '../harness/wait';

jest.setTimeout(180_000);

/** The embedded API with one render worker, whatever the feed holds. */
const PEAK_RSS_CEILING_MIB = 640;

let cwd: string;
beforeAll(async () => {
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-hostile-'));
  const feed = path.join(cwd, 'mrms');
  await fs.mkdir(feed);
  await fs.copyFile(mrmsSample(REFLECTIVITY_SAMPLE), path.join(feed, REFLECTIVITY_SAMPLE));
  const at = (minutes: number) => path.join(feed, mrmsFileName(SAMPLE_TIME_MS + minutes * 60_000));
  await fs.symlink('/dev/zero', at(2));
  execFileSync('mkfifo', [at(4)]);
  await fs.symlink('.', path.join(feed, 'loop-a'));
  await fs.symlink('.', path.join(feed, 'loop-b'));
  await fs.symlink('/', path.join(feed, 'root'));
  await fs.writeFile(at(6), conusPng32()); // valid 12:00:39 inside, like the sample
  const past = new Date(Date.now() - 60_000);
  for (const name of await fs.readdir(feed))
    await fs.lutimes(path.join(feed, name), past, past).catch(() => undefined);
});
afterAll(() => fs.rm(cwd, { recursive: true, force: true }));

it('keeps serving, publishes the sample and counts the hostile entries', async () => {
  const { proc, base, admin, headers } = await startApi(cwd, {
    RADAR_SOURCE: 'mrms',
    MRMS_SOURCE: 'mrms',
    MRMS_TIMEOUT_S: '5',
    RADAR_RETENTION_S: String(10 * 365 * 86400),
    NODE_OPTIONS: PEAK_RSS_OPTIONS,
  });
  let code: number | null = null;
  try {
    const metric = async (series: string) =>
      seriesValue((await request(admin, '/metrics')).body.toString(), series);
    await waitFor(
      async () => {
        // Every look also asks the API: it must answer throughout (503 until a frame is out).
        expect((await request(admin, '/healthz')).status).toBe(200);
        const listed = (await request(base, '/status.json', { headers })).status;
        expect([200, 503]).toContain(listed);
        return (
          listed === 200 && (await metric('radar_mrms_failures_total{reason="bad-file"}')) >= 2
        );
      },
      120_000,
      'the sample listed and the hostile entries counted',
      250,
    );
    const status = (await request(base, '/status.json', { headers })).json() as {
      timestamps: string[];
    };
    expect(status.timestamps).toEqual([SAMPLE_TIMESTAMP]);
  } finally {
    code = await proc.stop('SIGTERM');
  }
  const rss = peakRssMib(proc.stderr());
  process.stdout.write(`[mrms-embedded-hostile] peak RSS ${rss.toFixed(0)} MiB\n`);
  expect(code).toBe(0);
  expect(rss).toBeLessThanOrEqual(PEAK_RSS_CEILING_MIB);
});
