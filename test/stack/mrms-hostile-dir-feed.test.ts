/**
 * The hostile-feed matrix of the directory feed: the built producer (`node dist/bin/mrms.js`, a
 * real process) follows a directory holding one good frame and one hostile entry named like a
 * newer MRMS file: a link to /dev/zero, a FIFO, links to `.` and `/` (loops and an escape), a
 * link out of the feed, a loop of links, a file that is still growing. Each time the good frame
 * is published, the hostile entry is counted and logged (or, growing, published once whole),
 * SIGTERM ends the process cleanly, and its peak RSS (getrusage, worker threads included) and
 * wall time stay under fixed ceilings. The figures are printed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { mrmsFileName, sampleFrameAt, SAMPLE_TIME_MS } from '../fixtures/mrms-frames';
import { startProducer } from '../harness/mrms-producer';
import { PEAK_RSS_OPTIONS, peakRssMib } from '../harness/peak-rss';

jest.setTimeout(240_000);

/** Ceilings of one case: the whole producer process, from start to exit. */
const PEAK_RSS_CEILING_MIB = 512;
const WALL_CEILING_S = 90;

const CONVERTED = 'radar_mrms_frames_converted_total';
const BAD = 'radar_mrms_failures_total{reason="bad-file"}';
/** The hostile entry's name: newer than the good frame, so it is met first in every pass. */
const HOSTILE_NAME = mrmsFileName(SAMPLE_TIME_MS + 2 * 60_000);

let root: string;
const figures: string[] = [];
beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-hostile-dir-'));
});
afterAll(async () => {
  process.stdout.write(
    `[hostile-dir] peak RSS and wall time per case\n  ${figures.join('\n  ')}\n`,
  );
  await fs.rm(root, { recursive: true, force: true });
});

interface Case {
  readonly title: string;
  /** Makes the hostile entries in `day`; `outside` is a directory beside the feed. */
  readonly make: (day: string, outside: string) => Promise<void>;
  /** Bad-file failures the entry costs (0 when it is merely not a file of the feed). */
  readonly bad: number;
  /** What the log says about it. */
  readonly logged?: RegExp;
  /** After the good frame is out: more steps and the frames then expected. */
  readonly then?: (day: string) => Promise<number>;
}

const frame = sampleFrameAt(SAMPLE_TIME_MS);
const later = sampleFrameAt(SAMPLE_TIME_MS + 2 * 60_000);

const CASES: Case[] = [
  {
    title: 'a link to /dev/zero',
    make: (day) => fs.symlink('/dev/zero', path.join(day, HOSTILE_NAME)),
    bad: 1,
    logged: /leads to \/dev\/zero, outside the feed directory/,
  },
  {
    title: 'a FIFO nobody writes to',
    make: async (day) => {
      execFileSync('mkfifo', [path.join(day, HOSTILE_NAME)]);
    },
    bad: 1,
    logged: /a FIFO, not a regular file/,
  },
  {
    title: 'two links to ".", one to ".." and one to "/"',
    make: async (day) => {
      await fs.symlink('.', path.join(day, 'loop-a'));
      await fs.symlink('.', path.join(day, 'loop-b'));
      await fs.symlink('..', path.join(day, 'up'));
      await fs.symlink('/', path.join(day, 'root'));
      await fs.symlink('/', path.join(day, HOSTILE_NAME));
    },
    bad: 1,
    logged: /leads to \/, outside the feed directory/,
  },
  {
    title: 'a link to a good file outside the feed',
    make: async (day, outside) => {
      await fs.writeFile(path.join(outside, 'elsewhere.grib2.gz'), later.bytes);
      await fs.symlink(path.join(outside, 'elsewhere.grib2.gz'), path.join(day, HOSTILE_NAME));
    },
    bad: 1,
    logged: /outside the feed directory/,
  },
  {
    title: 'a loop of links named like a file',
    make: async (day) => {
      await fs.symlink(path.join(day, 'b'), path.join(day, HOSTILE_NAME));
      await fs.symlink(path.join(day, HOSTILE_NAME), path.join(day, 'b'));
    },
    bad: 1,
    logged: /a loop of links/,
  },
  {
    title: 'a file still growing when first read',
    make: async (day) => {
      // Half written, and quiet for a minute (a stalled writer): it is read and refused.
      const file = path.join(day, HOSTILE_NAME);
      await fs.writeFile(file, later.bytes.subarray(0, later.bytes.length >> 1));
      const past = new Date(Date.now() - 60_000);
      await fs.utimes(file, past, past);
    },
    bad: 1,
    logged: /mrms file skipped/,
    then: async (day) => {
      // The writer finishes: the new size and mtime make it a new version, tried again.
      await fs.appendFile(
        path.join(day, HOSTILE_NAME),
        later.bytes.subarray(later.bytes.length >> 1),
      );
      return 2;
    },
  },
];

it.each(CASES.map((c, i) => [c.title, i] as const))('%s', async (title, index) => {
  const c = CASES[index]!;
  const dir = path.join(root, `case-${index}`);
  const day = path.join(dir, 'feed', '20230406');
  const outside = path.join(dir, 'outside');
  await fs.mkdir(day, { recursive: true });
  await fs.mkdir(outside);
  await fs.writeFile(path.join(day, frame.name), frame.bytes);
  const past = new Date(Date.now() - 60_000);
  await fs.utimes(path.join(day, frame.name), past, past);
  await c.make(day, outside);

  const began = performance.now();
  const producer = await startProducer(
    {
      MRMS_SOURCE: path.join(dir, 'feed'),
      RADAR_DATA_DIR: path.join(dir, 'data'),
      MRMS_POLL_S: '1',
      MRMS_TIMEOUT_S: '5',
      NODE_OPTIONS: PEAK_RSS_OPTIONS,
    },
    dir,
  );
  let code: number | null;
  try {
    await producer.waitForValue(CONVERTED, 1);
    if (c.bad > 0) await producer.waitForValue(BAD, c.bad);
    if (c.logged) expect(producer.proc.stdout()).toMatch(c.logged);
    if (c.then) await producer.waitForValue(CONVERTED, await c.then(day));
  } finally {
    code = await producer.stop();
  }
  const seconds = (performance.now() - began) / 1000;
  const rss = peakRssMib(producer.proc.stderr());
  figures.push(`${title}: ${rss.toFixed(0)} MiB, ${seconds.toFixed(1)} s`);
  expect(code).toBe(0);
  expect(rss).toBeLessThanOrEqual(PEAK_RSS_CEILING_MIB);
  expect(seconds).toBeLessThanOrEqual(WALL_CEILING_S);
  const published = (await fs.readdir(path.join(dir, 'data'))).filter((f) =>
    f.endsWith('.pmtiles'),
  );
  expect(published).toContain('202304061200.pmtiles');
});
