/**
 * Follow mode with precipitation type, through the S3 feed: `npm run mrms` (the built process)
 * follows a bucket laid out exactly like NOAA's (`CONUS/{product}/{YYYYMMDD}/`, read
 * anonymously at a local endpoint) and finds each frame's PrecipFlag file in the product
 * folder beside the reflectivity's. The same cases as the directory feed
 * (`test/harness/typed-follow.ts`): typed with the flag of its cycle, untyped after the wait
 * when the only flags are of other cycles or there is none, untyped with a corrupt flag, and a
 * late flag changes nothing.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startProducer, type ProducerProcess } from '../harness/mrms-producer';
import { startS3, type S3TestServer } from '../harness/s3-server';
import {
  checkTypedFollow,
  dataDirArchives,
  putInitialFiles,
  TYPED_FOLLOW_ENV,
  type TypedFollowFeed,
} from '../harness/typed-follow';
import { noaaKey, PRODUCT_LEVEL } from '../fixtures/mrms-frames';

jest.setTimeout(240_000);

let s3: S3TestServer;
let root: string;
let producer: ProducerProcess | undefined;

const feed: TypedFollowFeed = {
  async put(product, files) {
    for (const file of files) await s3.put(noaaKey(`CONUS/${product}/`, file.name), file.bytes);
  },
  ...dataDirArchives(() => path.join(root, 'archives')),
};

beforeAll(async () => {
  s3 = await startS3();
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-typed-s3-'));
  await putInitialFiles(feed);
});

afterAll(async () => {
  await producer?.stop();
  await s3?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

it('publishes the paired frame typed, the others untyped after the wait, and never again', async () => {
  producer = await startProducer(
    {
      ...TYPED_FOLLOW_ENV,
      MRMS_SOURCE: `s3://${s3.bucket}/CONUS/${PRODUCT_LEVEL}/`,
      MRMS_S3_ENDPOINT: s3.endpoint,
      MRMS_S3_REGION: s3.region,
      RADAR_DATA_DIR: path.join(root, 'archives'),
    },
    root,
  );
  await checkTypedFollow(producer, feed);
  expect(await producer.stop()).toBe(0);
  producer = undefined;
});
