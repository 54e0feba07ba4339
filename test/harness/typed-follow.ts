/**
 * The typed follow-mode scenario (test/fixtures/typed-follow.ts) run against the built
 * producer, whatever the feed: the test says how to put files into its feed and how to read
 * the published archives; this checks what the producer made of them.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { readArchiveMetadata } from '../../src/pmtiles/archive-metadata';
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
import type { ProducerProcess } from './mrms-producer';

const CONVERTED = 'radar_mrms_frames_converted_total';
const NO_FLAG = 'radar_mrms_untyped_frames_total{reason="no-flag"}';
const BAD_FLAG = 'radar_mrms_untyped_frames_total{reason="bad-flag"}';

/** The producer's settings of the scenario besides the source and the archive store. */
export const TYPED_FOLLOW_ENV = {
  MRMS_BACKFILL: '10',
  MRMS_MAX_ZOOM: '3',
  MRMS_POLL_S: '1',
  MRMS_TYPE_WAIT_S: '3',
};

export interface TypedFollowFeed {
  /** Puts `files` of `product` into the feed, NOAA's layout. */
  put(product: string, files: readonly FeedFileBytes[]): Promise<void>;
  /** The published archive of `timestamp`. */
  archive(timestamp: string): Promise<Buffer>;
  /** Something that changes whenever `timestamp`'s archive is written again (mtime, ETag). */
  version(timestamp: string): Promise<unknown>;
}

/**
 * The published-archive side of a feed whose producer writes into `archives()` (a data
 * directory): its archive of a timestamp, and the file's inode and mtime as its version.
 */
export function dataDirArchives(
  archives: () => string,
): Pick<TypedFollowFeed, 'archive' | 'version'> {
  const archivePath = (timestamp: string) => path.join(archives(), `${timestamp}.pmtiles`);
  return {
    archive: (timestamp) => fs.readFile(archivePath(timestamp)),
    async version(timestamp) {
      const stat = await fs.stat(archivePath(timestamp));
      return [stat.ino, stat.mtimeMs];
    },
  };
}

/** The files present before the producer starts. */
export async function putInitialFiles(feed: TypedFollowFeed): Promise<void> {
  await feed.put(PRODUCT_LEVEL, initialFrames());
  await feed.put(FLAG_PRODUCT_LEVEL, initialFlags());
}

/**
 * Checks a producer started on the feed (after {@link putInitialFiles}, with
 * {@link TYPED_FOLLOW_ENV}): the paired frame typed, the others untyped after the wait, the
 * metric and log lines, and a late flag changing nothing.
 */
export async function checkTypedFollow(
  producer: ProducerProcess,
  feed: TypedFollowFeed,
): Promise<void> {
  await producer.waitForValue(CONVERTED, 4);
  expect(await producer.value(NO_FLAG)).toBe(2);
  expect(await producer.value(BAD_FLAG)).toBe(1);

  const typed = await feed.archive(TYPED);
  expect(readArchiveMetadata(typed)).toMatchObject({
    precipitationType: { typed: true },
    precipFlag: { file: 'MRMS_PrecipFlag_00.00_20230406-120000.grib2.gz', used: true },
  });
  // The pixels are those of the frame typed by its flag (render-typed.test.ts checks that
  // rule cell by cell: snow over flag 3, hail over 7), and some are not rain: the untyped
  // archive differs.
  const expected = expectedTypedArchive(Number(TYPED_FOLLOW_ENV.MRMS_MAX_ZOOM));
  expect(typed.equals(expected.typed)).toBe(true);
  expect(typed.equals(expected.untyped)).toBe(false);

  for (const timestamp of [OTHER_CYCLE, MISSING])
    expect([timestamp, readArchiveMetadata(await feed.archive(timestamp))]).toEqual([
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
  expect(readArchiveMetadata(await feed.archive(HOSTILE))).toMatchObject({
    precipitationType: { typed: false },
    precipFlag: { file: 'MRMS_PrecipFlag_00.00_20230406-120600.grib2.gz', used: false },
  });
  const log = producer.proc.stdout();
  expect(log).toContain('mrms frame published untyped');
  expect(log).toContain('"reason":"bad-flag"');

  // The flag of the frame already published untyped lands, with the next cycle's frame and flag.
  const before = await feed.version(MISSING);
  const later = laterFiles();
  await feed.put(FLAG_PRODUCT_LEVEL, later.flags);
  await feed.put(PRODUCT_LEVEL, later.frames);
  await producer.waitForValue(CONVERTED, 5);
  expect(readArchiveMetadata(await feed.archive(LATER))).toMatchObject({
    precipitationType: { typed: true },
  });
  expect(await feed.version(MISSING)).toEqual(before);
  expect(readArchiveMetadata(await feed.archive(MISSING))).toMatchObject({
    precipitationType: { typed: false },
  });
  expect(await producer.value(CONVERTED)).toBe(5);
  expect(await producer.value(NO_FLAG)).toBe(2);
}
