/**
 * The S3 archive source (ingest side) against a real S3 endpoint: listing relative to the
 * prefix with quoted ETags, head reads that are exact even where s3rver mishandles ranges
 * (`bytes=0-0`, empty objects), and removal.
 */
import { createHash } from 'node:crypto';
import { createS3ArchiveSource } from '../../src/adapters/s3/archive-source';
import { createS3Client, type S3Client } from '../../src/adapters/s3/client';
import type { ArchiveSource } from '../../src/domain/ports';
import { buildArchive } from '../fixtures/archives';
import { waitFor } from '../harness/wait';
import { startS3, type S3TestServer } from '../harness/s3-server';

jest.setTimeout(30_000);

const PREFIX = 'radar/v1/';
let s3: S3TestServer;
let client: S3Client;
let source: ArchiveSource;
const archive = buildArchive('202405061200');
const tiny = Buffer.from('0123456789');

const md5Etag = (bytes: Buffer) => `"${createHash('md5').update(bytes).digest('hex')}"`;

beforeAll(async () => {
  s3 = await startS3();
  client = createS3Client(
    { endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, region: s3.region },
    { timeoutMs: 2000 },
  );
  source = createS3ArchiveSource({ client, bucket: s3.bucket, prefix: PREFIX, timeoutMs: 2000 });
  await s3.put(`${PREFIX}202405061200.pmtiles`, archive);
  await s3.put(`${PREFIX}202405061202.pmtiles`, tiny);
  await s3.put(`${PREFIX}empty.pmtiles`, Buffer.alloc(0));
  await s3.put(`${PREFIX}nested/202405061204.pmtiles`, tiny); // not directly under the prefix
  await s3.put('radar/other/202405061206.pmtiles', tiny); // another prefix
});

afterAll(async () => {
  client?.close();
  await s3?.stop();
});

it('lists the objects directly under the prefix, named relative to it, with quoted ETags', async () => {
  const before = Date.now();
  const objects = await source.list();
  const byName = new Map(objects.map((o) => [o.name, o]));
  expect([...byName.keys()].sort()).toEqual([
    '202405061200.pmtiles',
    '202405061202.pmtiles',
    'empty.pmtiles',
  ]);
  expect(byName.get('202405061200.pmtiles')).toMatchObject({
    size: archive.length,
    etag: md5Etag(archive),
  });
  expect(byName.get('202405061202.pmtiles')).toMatchObject({ size: 10, etag: md5Etag(tiny) });
  expect(byName.get('empty.pmtiles')).toMatchObject({ size: 0 });
  for (const object of objects) {
    expect(object.lastModified).toBeInstanceOf(Date);
    expect(Math.abs(object.lastModified.getTime() - before)).toBeLessThan(60_000);
  }
});

it('reads exact heads: 16 KiB, one byte (bytes=0-0), more than the object, an empty object', async () => {
  expect(
    (await source.readHead('202405061200.pmtiles', 16384)).equals(archive.subarray(0, 16384)),
  ).toBe(true);
  expect(await source.readHead('202405061200.pmtiles', 1)).toEqual(archive.subarray(0, 1));
  expect(await source.readHead('202405061202.pmtiles', 16384)).toEqual(tiny);
  expect(await source.readHead('202405061202.pmtiles', 10)).toEqual(tiny);
  const started = Date.now();
  expect(await source.readHead('empty.pmtiles', 16384)).toEqual(Buffer.alloc(0));
  expect(Date.now() - started).toBeLessThan(1500); // s3rver never finishes this body: not waited for
  await waitFor(() => client.sockets().busy === 0, 2000); // the cut upstream released its socket
});

it('rejects a head read of a missing object', async () => {
  await expect(source.readHead('202405061158.pmtiles', 16384)).rejects.toMatchObject({
    code: 'NoSuchKey',
  });
});

it('removes objects; removing a missing one is not an error', async () => {
  await source.remove('202405061202.pmtiles');
  await source.remove('202405061202.pmtiles');
  expect((await source.list()).map((o) => o.name).sort()).toEqual([
    '202405061200.pmtiles',
    'empty.pmtiles',
  ]);
});
