/**
 * Follow mode with precipitation type, through the directory feed: `npm run mrms` (the built
 * process) follows a directory laid out like NOAA's (`CONUS/{product}/{YYYYMMDD}/`), the
 * reflectivity folder as `MRMS_SOURCE` and the PrecipFlag folder beside it. A frame with the
 * flag of its cycle is published typed (the very archive the one-shot conversion makes with
 * that flag, unlike the untyped one); a frame whose only flags are of other cycles, and one
 * with no flag at all, are published untyped once the wait is over; a corrupt flag file
 * publishes its frame untyped; a flag arriving after its frame went out changes nothing
 * (`test/harness/typed-follow.ts`).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startProducer, type ProducerProcess } from '../harness/mrms-producer';
import {
  checkTypedFollow,
  dataDirArchives,
  putInitialFiles,
  TYPED_FOLLOW_ENV,
  type TypedFollowFeed,
} from '../harness/typed-follow';
import { PRODUCT_LEVEL } from '../fixtures/mrms-frames';

jest.setTimeout(240_000);

let root: string;
let producer: ProducerProcess | undefined;

const folder = (product: string) => path.join(root, 'CONUS', product);

const feed: TypedFollowFeed = {
  async put(product, files) {
    const day = path.join(folder(product), '20230406');
    await fs.mkdir(day, { recursive: true });
    for (const file of files) await fs.writeFile(path.join(day, file.name), file.bytes);
  },
  ...dataDirArchives(() => path.join(root, 'archives')),
};

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-typed-'));
  await putInitialFiles(feed);
});

afterAll(async () => {
  await producer?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

it('publishes the paired frame typed, the others untyped after the wait, and never again', async () => {
  producer = await startProducer(
    {
      ...TYPED_FOLLOW_ENV,
      MRMS_SOURCE: folder(PRODUCT_LEVEL),
      RADAR_DATA_DIR: path.join(root, 'archives'),
    },
    root,
  );
  await checkTypedFollow(producer, feed);
  expect(await producer.stop()).toBe(0);
  producer = undefined;
});
