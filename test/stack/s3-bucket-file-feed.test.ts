/**
 * The S3 feed on a real S3 endpoint (s3rver or MinIO through the harness), laid out like
 * NOAA's bucket: every file of the window is listed whatever order the files arrive in (NOAA's
 * bucket delivers out of order), and a name from later in the day hides nothing after it.
 */
import { createBucketFileFeed } from '../../src/sources/mrms/bucket-file-feed';
import { createS3Client, type S3Client } from '../../src/adapters/s3/client';
import type { FileFeed } from '../../src/domain/producer-ports';
import { startS3, type S3TestServer } from '../harness/s3-server';

const PRODUCT = 'ReflectivityAtLowestAltitude_00.50';
const PREFIX = `CONUS/${PRODUCT}/`;

let s3: S3TestServer;
let client: S3Client;
let clock = Date.UTC(2023, 3, 6, 12, 10);
let feed: FileFeed;

/** The key of the file named `yyyymmdd-hhmmss`, in its day folder. */
const key = (stamp: string) => `${PREFIX}${stamp.slice(0, 8)}/MRMS_${PRODUCT}_${stamp}.grib2.gz`;
const put = (stamp: string) => client.minio.putObject(s3.bucket, key(stamp), Buffer.from('x'));
const newest = async (count: number) =>
  (await feed.newest(count)).map((f) => f.name.slice(-24, -9));

beforeAll(async () => {
  s3 = await startS3();
  client = createS3Client(
    { endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, region: s3.region },
    { timeoutMs: 5000 },
  );
  feed = createBucketFileFeed({
    client,
    endpoint: s3.endpoint,
    bucket: s3.bucket,
    prefix: PREFIX,
    productLevel: PRODUCT,
    now: () => clock,
  });
});

afterAll(async () => {
  client?.close();
  await s3?.stop();
});

it('lists a late file named before the newest, and files after a name from later in the day', async () => {
  for (const stamp of ['20230406-115039', '20230406-115439', '20230406-115839']) await put(stamp);
  await put('20230406-120239');
  await put('20230406-120639');
  expect(await newest(3)).toEqual(['20230406-120639', '20230406-120239', '20230406-115839']);

  // Arrives after 12:06, named 12:04: inside the window, so it is listed at the next poll.
  await put('20230406-120439');
  expect(await newest(3)).toEqual(['20230406-120639', '20230406-120439', '20230406-120239']);

  // A name from the end of the day, then the next real file: it is listed (the follower
  // skips the future name), not hidden behind it.
  await put('20230406-235959');
  expect(await newest(4)).toEqual([
    '20230406-235959',
    '20230406-120639',
    '20230406-120439',
    '20230406-120239',
  ]);
  clock += 2 * 60_000;
  await put('20230406-120839');
  expect(await newest(4)).toEqual([
    '20230406-235959',
    '20230406-120839',
    '20230406-120639',
    '20230406-120439',
  ]);
  await put('20230406-120739'); // late again, between two listed files
  expect(await newest(4)).toContain('20230406-120739');
});

it('keeps the window across midnight: a late file in yesterday’s folder is listed', async () => {
  clock = Date.UTC(2023, 3, 7, 0, 2);
  await put('20230407-000039');
  expect((await newest(4)).slice(0, 2)).toEqual(['20230407-000039', '20230406-235959']);
  await put('20230406-121039'); // yesterday's folder, inside the window
  expect(await newest(4)).toEqual([
    '20230407-000039',
    '20230406-235959',
    '20230406-121039',
    '20230406-120839',
  ]);
});
