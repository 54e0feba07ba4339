/**
 * The S3 frame sink against a real S3 endpoint: an uploaded frame is the archive object with
 * the PMTiles content type, `has` reflects it, and a published key is never overwritten.
 */
import { createS3Client, objectKey, type S3Client } from '../../src/adapters/s3/client';
import { createS3FrameSink } from '../../src/adapters/s3/frame-sink';
import type { FrameSink } from '../../src/domain/producer-ports';
import { buildArchive } from '../fixtures/archives';
import { startS3, type S3TestServer } from '../harness/s3-server';

jest.setTimeout(30_000);

const PREFIX = 'sim/';
const TS = '202405061200';
let s3: S3TestServer;
let client: S3Client;
let sink: FrameSink;

async function download(key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await client.minio.getObject(s3.bucket, key))
    chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  s3 = await startS3();
  client = createS3Client(
    { endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, region: s3.region },
    { timeoutMs: 2000 },
  );
  sink = createS3FrameSink({ client, bucket: s3.bucket, prefix: PREFIX });
});

afterAll(async () => {
  client?.close();
  await s3?.stop();
});

it('uploads a frame as {prefix}{timestamp}.pmtiles with the PMTiles content type', async () => {
  const archive = buildArchive(TS);
  expect(await sink.has(TS)).toBe(false);
  await sink.put(TS, archive);
  expect(await sink.has(TS)).toBe(true);
  expect((await download(objectKey(PREFIX, TS))).equals(archive)).toBe(true);
  const stat = await client.minio.statObject(s3.bucket, objectKey(PREFIX, TS));
  expect(stat.size).toBe(archive.length);
  expect(stat.metaData['content-type']).toBe('application/vnd.pmtiles');
});

it('never overwrites a published archive: the first one wins', async () => {
  const first = buildArchive('202405061202');
  const second = buildArchive('202405061202', 2);
  await sink.put('202405061202', first);
  await sink.put('202405061202', second);
  expect((await download(objectKey(PREFIX, '202405061202'))).equals(first)).toBe(true);
});
