/**
 * An S3 bucket laid out like NOAA's MRMS open-data bucket as the follower's feed:
 * `{prefix}{YYYYMMDD}/MRMS_{product}_{YYYYMMDD-HHMMSS}.grib2.gz`, one folder per UTC day.
 *
 * Every poll sees every file of the window, whatever order the files arrive in: NOAA's bucket
 * delivers out of order, and a file that lands after a newer one must still be published. So
 * once the window (the newest `count` files) is known, a poll lists the day folders from the
 * window's oldest file to today, starting after that oldest key (S3 `start-after`): the
 * window's own keys and whatever arrived since, late ones included (a few KiB for a window of
 * 30). Listing only after the newest key seen missed late files until a restart, and one
 * object named later in the day (`..._{today}-235959`) hid every new file until midnight. A
 * full listing (today, yesterday, then older day folders, newest first) happens at start,
 * after the window has moved past yesterday, and while it holds fewer than `count` files.
 * Names from the future are listed like any other: the follower counts and skips them.
 */
import type { Readable } from 'node:stream';
import type { BucketItem } from 'minio';
import { FeedFileError, type FeedFile, type FileFeed } from '../../domain/producer-ports';
import { readBounded } from '../../shared/read-bounded';
import { baseName, dayFolder, feedFile, newestFirst } from './mrms-file-name';
import type { S3Client } from '../../adapters/s3/client';
import { isS3NotFound } from '../../adapters/s3/errors';

export interface BucketFileFeedOptions {
  readonly client: S3Client;
  /** The endpoint the client talks to, for logs. */
  readonly endpoint: string;
  readonly bucket: string;
  /** The product's folder, ending in `/` (or empty): day folders lie directly under it. */
  readonly prefix: string;
  readonly productLevel: string;
  /** Clock, epoch ms (which day folder is today). */
  readonly now?: () => number;
}

/** Pages of one listing read at most (1,000 keys each; a day folder holds about 720 files). */
const MAX_PAGES = 10;
/** Older day folders visited at most when today and yesterday hold too few files. */
const MAX_OLDER_DAYS = 10;
const DAY_MS = 86_400_000;
const DAY = /^[0-9]{8}$/;

/** Creates the feed. It shares the client; closing the client is the caller's job. */
export function createBucketFileFeed(options: BucketFileFeedOptions): FileFeed {
  const { client, bucket, prefix, productLevel } = options;
  const now = options.now ?? Date.now;
  /** The window: the newest files seen, newest first (at most the last count asked for). */
  let known: FeedFile[] = [];

  /** Keys (or, with a delimiter, folder prefixes) under `under`, after `startAfter`. */
  const list = async (under: string, delimiter: string, startAfter = ''): Promise<BucketItem[]> => {
    const items: BucketItem[] = [];
    let token = '';
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await client.minio.listObjectsV2Query(
        bucket,
        under,
        token,
        delimiter,
        1000,
        startAfter,
      );
      items.push(...res.objects);
      if (!res.isTruncated || !res.nextContinuationToken) break;
      token = res.nextContinuationToken;
    }
    return items;
  };

  const filesIn = async (day: string, startAfter = ''): Promise<FeedFile[]> => {
    const files: FeedFile[] = [];
    for (const item of await list(`${prefix}${day}/`, '', startAfter)) {
      if (item.name === undefined) continue;
      const file = feedFile(item.name, baseName(item.name), productLevel);
      if (file) files.push(file);
    }
    return files;
  };

  /** Day folders that exist, newest first. */
  const days = async (): Promise<string[]> =>
    (await list(prefix, '/'))
      .map((item) => (item.prefix ?? '').slice(prefix.length).replace(/\/$/, ''))
      .filter((day) => DAY.test(day))
      .sort()
      .reverse();

  const fullListing = async (count: number): Promise<FeedFile[]> => {
    const today = dayFolder(now());
    const yesterday = dayFolder(now() - DAY_MS);
    const found = [...(await filesIn(today)), ...(await filesIn(yesterday))];
    if (found.length < count) {
      const older = (await days()).filter((day) => day < yesterday).slice(0, MAX_OLDER_DAYS);
      for (const day of older) {
        found.push(...(await filesIn(day)));
        if (found.length >= count) break;
      }
    }
    return newestFirst(found);
  };

  /** The window's files and what arrived since: day folders from the oldest one to today. */
  const sinceOldest = async (oldest: FeedFile): Promise<FeedFile[] | undefined> => {
    const today = dayFolder(now());
    const first = dayFolder(oldest.timeMs);
    if (first !== today && first !== dayFolder(now() - DAY_MS)) return undefined;
    const found = [oldest];
    if (first !== today) found.push(...(await filesIn(first, oldest.key)));
    found.push(...(await filesIn(today, first === today ? oldest.key : '')));
    return found;
  };

  return {
    describe: `s3://${bucket}/${prefix} at ${options.endpoint}`,
    async newest(count) {
      const oldest = known.length >= count ? known[known.length - 1] : undefined;
      const listed = (oldest && (await sinceOldest(oldest))) ?? (await fullListing(count));
      const unique = new Map(listed.map((file) => [file.key, file]));
      known = newestFirst([...unique.values()]).slice(0, count);
      return [...known];
    },
    async read(file, maxBytes) {
      let stream: Readable;
      try {
        stream = await client.minio.getObject(bucket, file.key);
      } catch (error) {
        if (isS3NotFound(error)) throw new FeedFileError(file.key, 'missing', 'the object is gone');
        throw error;
      }
      return readBounded(
        stream,
        maxBytes,
        () => new FeedFileError(file.key, 'too-large', `more than ${maxBytes} bytes`),
      );
    },
  };
}
