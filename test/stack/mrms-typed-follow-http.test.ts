/**
 * Follow mode with precipitation type, through the HTTP listing feed: `npm run mrms` (the built
 * process) follows a local stand-in for NOAA's MRMS server (test/harness/mrms-http-directory.ts),
 * `MRMS_SOURCE` the reflectivity's directory `data/2D/ReflectivityAtLowestAltitude/` and the
 * flags in the sibling `data/2D/PrecipFlag/`, both flat, as NOAA's server lists them. The same
 * scenario as the directory and S3 feeds (`test/harness/typed-follow.ts`): the paired frame is
 * published typed, byte for byte the one-shot conversion with its flag; frames with flags of
 * other cycles or none untyped after the wait; a corrupt flag publishes its frame untyped; a
 * flag arriving after its frame went out changes nothing.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startMrmsDirectoryServer, type MrmsDirectoryServer } from '../harness/mrms-http-directory';
import { startProducer, type ProducerProcess } from '../harness/mrms-producer';
import {
  checkTypedFollow,
  dataDirArchives,
  putInitialFiles,
  TYPED_FOLLOW_ENV,
  type TypedFollowFeed,
} from '../harness/typed-follow';
import { FLAG_PRODUCT_LEVEL, PRODUCT_LEVEL } from '../fixtures/mrms-frames';

jest.setTimeout(240_000);

/** NOAA's HTTP folders are named without the level: `ReflectivityAtLowestAltitude`, `PrecipFlag`. */
const folderName = (product: string) => product.replace(/_[0-9]{2}\.[0-9]{2}$/, '');
const urlPath = (product: string) => `/data/2D/${folderName(product)}/`;

let root: string;
let server: MrmsDirectoryServer | undefined;
let producer: ProducerProcess | undefined;

const served = (product: string) => path.join(root, 'served', folderName(product));

const feed: TypedFollowFeed = {
  async put(product, files) {
    await fs.mkdir(served(product), { recursive: true });
    for (const file of files) await fs.writeFile(path.join(served(product), file.name), file.bytes);
  },
  ...dataDirArchives(() => path.join(root, 'archives')),
};

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-typed-http-'));
  await putInitialFiles(feed);
  server = await startMrmsDirectoryServer({
    dir: served(PRODUCT_LEVEL),
    urlPath: urlPath(PRODUCT_LEVEL),
    siblings: [{ dir: served(FLAG_PRODUCT_LEVEL), urlPath: urlPath(FLAG_PRODUCT_LEVEL) }],
  });
});

afterAll(async () => {
  await producer?.stop();
  await server?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

it('publishes the paired frame typed, the others untyped after the wait, and never again', async () => {
  producer = await startProducer(
    {
      ...TYPED_FOLLOW_ENV,
      MRMS_SOURCE: server!.url,
      RADAR_DATA_DIR: path.join(root, 'archives'),
    },
    root,
  );
  await checkTypedFollow(producer, feed);
  // The flags were read from the sibling listing, over HTTP.
  expect(server!.requests.get(urlPath(FLAG_PRODUCT_LEVEL))).toBeGreaterThan(0);
  expect(await producer.stop()).toBe(0);
  producer = undefined;
});
