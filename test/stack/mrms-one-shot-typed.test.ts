/**
 * `npm run mrms -- --file <reflectivity> --type-file <flag> --out <dir>` as a real process
 * (dist/bin/mrms.js): a flag of the frame's cycle writes a typed archive; a flag that does not
 * pair (another cycle, a file that is not PrecipFlag, bytes that are not GRIB2) is refused on
 * stderr with the reason, and the frame is still written, untyped, exit 0.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readArchiveMetadata } from '../../src/pmtiles/archive-metadata';
import { MRMS_ENTRY } from '../harness/mrms-producer';
import {
  corruptFrameAt,
  SAMPLE_TIME_MS,
  SAMPLE_TIMESTAMP,
  sampleFlagAt,
  sampleFrameAt,
} from '../fixtures/mrms-frames';

const run = promisify(execFile);
const CYCLE_MS = SAMPLE_TIME_MS - 39_000;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mrms-typed-'));
  const frame = sampleFrameAt();
  await writeFile(path.join(dir, frame.name), frame.bytes);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function convert(flag: { name: string; bytes: Buffer }, out: string) {
  const flagFile = path.join(dir, `flag-${out}-${flag.name}`);
  await writeFile(flagFile, flag.bytes);
  const outDir = path.join(dir, out);
  const { stderr } = await run(
    process.execPath,
    [
      MRMS_ENTRY,
      '--file',
      path.join(dir, sampleFrameAt().name),
      '--type-file',
      flagFile,
      '--out',
      outDir,
      '--max-zoom',
      '3',
    ],
    // The sample is from 2023: a retention that keeps it (the command refuses older frames).
    { timeout: 120_000, env: { ...process.env, RADAR_RETENTION_S: String(10 * 365 * 86400) } },
  );
  const archive = await readFile(path.join(outDir, `${SAMPLE_TIMESTAMP}.pmtiles`));
  return { stderr, metadata: readArchiveMetadata(archive) };
}

it('writes a typed archive with the flag of the cycle', async () => {
  const { stderr, metadata } = await convert(sampleFlagAt(CYCLE_MS), 'paired');
  expect(stderr).toMatch(/wrote .*202304061200\.pmtiles: .* typed/);
  expect(metadata.precipitationType).toMatchObject({ typed: true });
  expect(metadata.precipFlag).toMatchObject({ used: true });
}, 180_000);

it.each([
  ['a flag of another cycle', () => sampleFlagAt(CYCLE_MS - 120_000), /159 s from/],
  ['a reflectivity file as flag', () => sampleFrameAt(CYCLE_MS), /not PrecipFlag/],
  ['bytes that are not GRIB2', () => corruptFrameAt(CYCLE_MS), /flag-/],
])(
  'refuses %s with a clear error and still writes the frame untyped',
  async (label, make, why) => {
    const { stderr, metadata } = await convert(make(), label.replace(/\W+/g, '-'));
    expect(stderr).toMatch(/mrms: type file .* refused: .*; the frame is written untyped/);
    expect(stderr).toMatch(why);
    expect(stderr).toMatch(/, untyped, /);
    expect(metadata.precipitationType).toEqual({ typed: false });
  },
  180_000,
);
