/**
 * Small files that declare large, strange or foreign grids, each converted by the built
 * producer (`node dist/bin/mrms.js --file`, a real process): every one ends in exit 1 with one
 * `mrms: <file>: <problem>` line (no stack trace), except the costliest honest input, the CONUS
 * grid full of echo, which is published; each process's peak RSS (getrusage) and wall time
 * stay under fixed ceilings. The figures are printed.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { constantGrib2, conusPng32, type HostileGrid } from '../fixtures/hostile-grib2';
import { mrmsFileName, SAMPLE_TIME_MS } from '../fixtures/mrms-frames';
import { MRMS_ENTRY } from '../harness/mrms-producer';
import { PEAK_RSS_OPTIONS, peakRssMib } from '../harness/peak-rss';
import { spawnNode } from '../harness/spawned-api';

jest.setTimeout(180_000);

const PEAK_RSS_CEILING_MIB = 512;
const WALL_CEILING_S = 60;
const NAME = mrmsFileName(SAMPLE_TIME_MS);

let root: string;
const figures: string[] = [];
beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-hostile-files-'));
});
afterAll(async () => {
  process.stdout.write(
    `[hostile-files] peak RSS and wall time per file\n  ${figures.join('\n  ')}\n`,
  );
  await fs.rm(root, { recursive: true, force: true });
});

const grid = (g: HostileGrid) => () => constantGrib2(g);

const REFUSED: Array<[string, () => Buffer, RegExp]> = [
  [
    '10000 x 10000 points claiming 32-bit PNG packing, scanning mode 0x40',
    grid({
      width: 10_000,
      height: 10_000,
      template: 41,
      bits: 32,
      scanMode: 0x40,
      djMicro: 1,
      diMicro: 1,
    }),
    /grid of 100000000 points exceeds the reader's cap of 24500000 points/,
  ],
  [
    '50 x 2,000,000 points claiming 32-bit PNG packing',
    grid({ width: 50, height: 2_000_000, template: 41, bits: 32, djMicro: 1 }),
    /exceeds the reader's cap of 24500000 points/,
  ],
  [
    'a constant field of 50 x 2,000,000 points',
    grid({ width: 50, height: 2_000_000, djMicro: 1 }),
    /exceeds the reader's cap of 24500000 points/,
  ],
  [
    '10^8 points of 16-bit simple packing',
    grid({ width: 10_000, height: 10_000, bits: 16, djMicro: 1, diMicro: 1 }),
    /exceeds the reader's cap of 24500000 points/,
  ],
  [
    '1 x 10^8 points',
    grid({ width: 1, height: 100_000_000, djMicro: 1 }),
    /exceeds the reader's cap/,
  ],
  [
    '3000 x 1400 points 0.1 degree apart: most of the world at z7',
    grid({
      width: 3000,
      height: 1400,
      diMicro: 100_000,
      djMicro: 100_000,
      northMicro: 69_950_000,
      westMicro: 0,
    }),
    /renders \d+ tiles at zooms 0-7, more than the \d+ of the MRMS CONUS domain/,
  ],
  [
    'a field of centre 7',
    grid({ width: 700, height: 350, diMicro: 100_000, djMicro: 100_000, centre: 7 }),
    /a field of centre 7 is not MRMS/,
  ],
  [
    'a valid time in the year 14083',
    grid({ width: 700, height: 350, diMicro: 100_000, djMicro: 100_000, year: 14_083 }),
    /cannot name an archive \(years 1970-9999 only\)/,
  ],
];

async function run(title: string, bytes: Buffer, args: string[] = []) {
  const dir = await fs.mkdtemp(path.join(root, 'case-'));
  const file = path.join(dir, NAME);
  await fs.writeFile(file, bytes);
  const began = performance.now();
  const proc = spawnNode(MRMS_ENTRY, {
    cwd: dir,
    // The sample's time is 2023: a retention that keeps it, or --file refuses the frame as too old.
    env: { NODE_OPTIONS: PEAK_RSS_OPTIONS, RADAR_RETENTION_S: String(10 * 365 * 86400) },
    args: ['--file', file, '--out', path.join(dir, 'out'), ...args],
  });
  const code = await new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
  const seconds = (performance.now() - began) / 1000;
  const rss = peakRssMib(proc.stderr());
  figures.push(
    `${title} (${bytes.length} bytes): exit ${code}, ${rss.toFixed(0)} MiB, ${seconds.toFixed(1)} s`,
  );
  expect(rss).toBeLessThanOrEqual(PEAK_RSS_CEILING_MIB);
  expect(seconds).toBeLessThanOrEqual(WALL_CEILING_S);
  return { code, stderr: proc.stderr(), dir };
}

it.each(REFUSED)('%s: refused with one line', async (title, make, problem) => {
  const { code, stderr } = await run(title, make());
  expect(code).toBe(1);
  const lines = stderr.split('\n').filter((l) => l !== '' && !l.startsWith('[peak-rss]'));
  expect(lines).toHaveLength(1);
  expect(lines[0]!.startsWith(`mrms: ${NAME}: `)).toBe(true);
  expect(lines[0]).toMatch(problem);
});

it('the CONUS grid full of echo (the costliest input within the limits) is published', async () => {
  const { code, stderr, dir } = await run('CONUS full of echo, 32-bit PNG, z7', conusPng32());
  expect(code).toBe(0);
  expect(await fs.readdir(path.join(dir, 'out'))).toEqual(['202304061200.pmtiles']);
  expect(stderr).toContain('wrote ');
});

it('a zoom deeper than 8 is refused', async () => {
  const { code, stderr } = await run('--max-zoom 9', conusPng32(), ['--max-zoom', '9']);
  expect(code).not.toBe(0);
  expect(stderr).toMatch(/max-zoom/);
});
