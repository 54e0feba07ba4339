/**
 * Follow mode with precipitation type, through the directory feed: `npm run mrms` (the built
 * process) follows a directory laid out like NOAA's (`CONUS/{product}/{YYYYMMDD}/`), the
 * reflectivity folder as `MRMS_SOURCE` and the PrecipFlag folder beside it. A frame with the
 * flag of its cycle is published typed (the very archive the one-shot conversion makes with
 * that flag, unlike the untyped one); a frame whose only flags are of other cycles, and one
 * with no flag at all, are published untyped once the wait is over; a corrupt flag file
 * publishes its frame untyped; a flag arriving after its frame went out changes nothing.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readArchiveMetadata } from '../../src/pmtiles/archive-metadata';
import { startProducer, type ProducerProcess } from '../harness/mrms-producer';
import { FLAG_PRODUCT_LEVEL, PRODUCT_LEVEL } from '../fixtures/mrms-frames';
import {
  expectedTypedArchive,
  HOSTILE,
  initialFlags,
  initialFrames,
  LATER,
  laterFiles,
  MISSING,
  OTHER_CYCLE,
  TYPED,
  type FeedFileBytes,
} from '../fixtures/typed-follow';

jest.setTimeout(240_000);

const CONVERTED = 'radar_mrms_frames_converted_total';
const NO_FLAG = 'radar_mrms_untyped_frames_total{reason="no-flag"}';
const BAD_FLAG = 'radar_mrms_untyped_frames_total{reason="bad-flag"}';

let root: string;
let out: string;
let producer: ProducerProcess | undefined;

const folder = (product: string) => path.join(root, 'CONUS', product);

async function put(product: string, files: readonly FeedFileBytes[]) {
  for (const file of files) {
    const day = path.join(folder(product), '20230406');
    await fs.mkdir(day, { recursive: true });
    await fs.writeFile(path.join(day, file.name), file.bytes);
  }
}

const archive = (timestamp: string) => fs.readFile(path.join(out, `${timestamp}.pmtiles`));

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-typed-'));
  out = path.join(root, 'archives');
  await put(PRODUCT_LEVEL, initialFrames());
  await put(FLAG_PRODUCT_LEVEL, initialFlags());
});

afterAll(async () => {
  await producer?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

it('publishes the paired frame typed, the others untyped after the wait, and never again', async () => {
  producer = await startProducer(
    {
      MRMS_SOURCE: folder(PRODUCT_LEVEL),
      RADAR_DATA_DIR: out,
      MRMS_BACKFILL: '10',
      MRMS_MAX_ZOOM: '3',
      MRMS_POLL_S: '1',
      MRMS_TYPE_WAIT_S: '3',
    },
    root,
  );
  await producer.waitForValue(CONVERTED, 4);
  expect(await producer.value(NO_FLAG)).toBe(2);
  expect(await producer.value(BAD_FLAG)).toBe(1);

  const typed = await archive(TYPED);
  expect(readArchiveMetadata(typed)).toMatchObject({
    precipitationType: { typed: true },
    precipFlag: { file: 'MRMS_PrecipFlag_00.00_20230406-120000.grib2.gz', used: true },
  });
  // The pixels are those of the frame typed by its flag (render-typed.test.ts checks that
  // rule cell by cell), and some are not rain: the untyped archive differs.
  const expected = expectedTypedArchive(3);
  expect(typed.equals(expected.typed)).toBe(true);
  expect(typed.equals(expected.untyped)).toBe(false);

  for (const timestamp of [OTHER_CYCLE, MISSING])
    expect([timestamp, readArchiveMetadata(await archive(timestamp))]).toEqual([
      timestamp,
      expect.objectContaining({
        precipitationType: { typed: false },
        precipFlag: {
          file: null,
          used: false,
          problem: expect.stringMatching(/no PrecipFlag_00\.00 file within 60 s .* 3 s/),
        },
      }),
    ]);
  expect(readArchiveMetadata(await archive(HOSTILE))).toMatchObject({
    precipitationType: { typed: false },
    precipFlag: { file: 'MRMS_PrecipFlag_00.00_20230406-120600.grib2.gz', used: false },
  });
  const log = producer.proc.stdout();
  expect(log).toContain('mrms frame published untyped');
  expect(log).toContain('"reason":"bad-flag"');

  // The flag of the frame already published untyped lands, with the next cycle's frame and flag.
  const before = await fs.stat(path.join(out, `${MISSING}.pmtiles`));
  const later = laterFiles();
  await put(FLAG_PRODUCT_LEVEL, later.flags);
  await put(PRODUCT_LEVEL, later.frames);
  await producer.waitForValue(CONVERTED, 5);
  expect(readArchiveMetadata(await archive(LATER))).toMatchObject({
    precipitationType: { typed: true },
  });
  const after = await fs.stat(path.join(out, `${MISSING}.pmtiles`));
  expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  expect(readArchiveMetadata(await archive(MISSING))).toMatchObject({
    precipitationType: { typed: false },
  });
  expect(await producer.value(CONVERTED)).toBe(5);
  expect(await producer.value(NO_FLAG)).toBe(2);
  expect(await producer.stop()).toBe(0);
  producer = undefined;
});
