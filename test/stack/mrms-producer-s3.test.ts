/**
 * The producer in production mode: `npm run mrms` (the built process) follows a local S3
 * bucket laid out exactly like NOAA's open-data bucket (`noaa-mrms-pds`,
 * `CONUS/ReflectivityAtLowestAltitude_00.50/{YYYYMMDD}/MRMS_...grib2.gz`, read anonymously,
 * with only `MRMS_S3_ENDPOINT` pointing at the local endpoint) and uploads into the archive
 * bucket; the ingest worker publishes into Redis and a replica serves the frames, read back
 * with the `pmtiles` reader. A corrupt file is counted and skipped; a restarted producer
 * uploads nothing.
 */
import { Client } from 'minio';
import { FetchSource, PMTiles } from 'pmtiles';
import { TIMESTAMPS_KEY } from '../../src/adapters/redis/keys';
import { request } from '../harness/http-client';
import { startProducer, type ProducerProcess } from '../harness/mrms-producer';
import { startProductionStack, stackAuth, type ProductionStack } from '../harness/production-stack';
import { waitFor } from '../harness/wait';
import {
  corruptFrameAt,
  noaaKey,
  SAMPLE_TIME_MS,
  SAMPLE_TIMESTAMP,
  sampleFrameAt,
} from '../fixtures/mrms-frames';
import { backendEnv } from '../../tools/stack/backend-env';

jest.setTimeout(240_000);

const SOURCE_BUCKET = 'noaa-mrms-pds';
const PREFIX = 'CONUS/ReflectivityAtLowestAltitude_00.50/';
const EARLIER = '202304061158';
const CONVERTED = 'radar_mrms_frames_converted_total';

let stack: ProductionStack;
let admin: Client;
let producer: ProducerProcess | undefined;

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 1 });
  const url = new URL(stack.s3.endpoint);
  admin = new Client({
    endPoint: url.hostname,
    port: Number(url.port),
    useSSL: false,
    accessKey: stack.s3.accessKey,
    secretKey: stack.s3.secretKey,
    region: stack.s3.region,
    pathStyle: true,
  });
  await admin.makeBucket(SOURCE_BUCKET, stack.s3.region);
  for (const frame of [
    sampleFrameAt(SAMPLE_TIME_MS - 120_000),
    sampleFrameAt(SAMPLE_TIME_MS),
    corruptFrameAt(SAMPLE_TIME_MS + 120_000),
  ])
    await admin.putObject(SOURCE_BUCKET, noaaKey(PREFIX, frame.name), frame.bytes);
});

afterAll(async () => {
  await producer?.stop();
  await stack?.stop();
});

/** Production configuration: Redis (lease), the archive bucket, NOAA's layout at a local endpoint. */
function producerEnv(): Record<string, string> {
  return {
    ...backendEnv(stack.redis.url, stack.s3),
    MRMS_S3_ENDPOINT: stack.s3.endpoint,
  };
}

async function archiveStat(timestamp: string) {
  const stat = await admin.statObject(stack.s3.bucket, `${timestamp}.pmtiles`);
  return { etag: stat.etag, lastModified: stat.lastModified.getTime(), size: stat.size };
}

it('publishes every frame of the NOAA-style bucket once; ingest and a replica serve them', async () => {
  producer = await startProducer(producerEnv(), process.cwd());
  await producer.waitForValue(CONVERTED, 2);
  await producer.waitForValue('radar_mrms_failures_total{reason="bad-file"}', 1);
  expect(await producer.value('radar_mrms_leader')).toBe(1);
  expect(await producer.value('radar_mrms_conversion_seconds_count')).toBe(2);
  expect(await producer.value('radar_mrms_source_lag_seconds')).toBeGreaterThan(
    (Date.now() - SAMPLE_TIME_MS) / 1000 - 60,
  );

  // Ingest publishes both into Redis; the replica lists and serves them.
  await waitFor(
    async () => (await stack.client.zscore(TIMESTAMPS_KEY, SAMPLE_TIMESTAMP)) !== null,
    30_000,
    'ingest published the frame',
  );
  const base = stack.baseUrls[0]!;
  await waitFor(
    async () => {
      const res = await request(base, '/status.json', { headers: stackAuth() });
      return res.status === 200 && res.json<{ timestamps: string[] }>().timestamps.length === 2;
    },
    30_000,
    'both frames listed',
  );
  const status = await request(base, '/status.json', { headers: stackAuth() });
  expect(status.json()).toEqual({
    healthy: false,
    latest: SAMPLE_TIMESTAMP,
    timestamps: [SAMPLE_TIMESTAMP, EARLIER],
    forecasts: [], // the producer of this test runs without the nowcast
  });

  const reader = new PMTiles(
    new FetchSource(`${base}/tiles/${SAMPLE_TIMESTAMP}.pmtiles`, new Headers(stackAuth())),
  );
  expect(await reader.getMetadata()).toMatchObject({
    timestamp: SAMPLE_TIMESTAMP,
    validTime: '2023-04-06T12:00:39.000Z',
    product: 'MRMS ReflectivityAtLowestAltitude 00.50',
  });
  const tile = await reader.getZxy(5, 7, 13);
  expect(tile).toBeDefined();
  const served = await request(base, `/tiles/${SAMPLE_TIMESTAMP}/5/7/13.png`, {
    headers: stackAuth(),
  });
  expect(served.status).toBe(200);
  expect(served.body.equals(Buffer.from(tile!.data))).toBe(true);
  // The earlier frame is the same weather at another valid time: same tiles, its own metadata.
  const earlier = new PMTiles(
    new FetchSource(`${base}/tiles/${EARLIER}.pmtiles`, new Headers(stackAuth())),
  );
  expect(await earlier.getMetadata()).toMatchObject({ validTime: '2023-04-06T11:58:39.000Z' });
  expect(Buffer.from((await earlier.getZxy(5, 7, 13))!.data).equals(Buffer.from(tile!.data))).toBe(
    true,
  );
});

it('a restarted producer uploads nothing: every frame is found in the archive bucket', async () => {
  const before = [await archiveStat(SAMPLE_TIMESTAMP), await archiveStat(EARLIER)];
  expect(await producer!.stop()).toBe(0); // releases the lease
  producer = await startProducer(producerEnv(), process.cwd());
  await producer.waitForValue('radar_mrms_frames_skipped_total', 2);
  expect(await producer.value(CONVERTED)).toBe(0);
  expect([await archiveStat(SAMPLE_TIMESTAMP), await archiveStat(EARLIER)]).toEqual(before);
  const names: string[] = [];
  for await (const item of admin.listObjectsV2(stack.s3.bucket, '', true))
    names.push(String(item.name));
  expect(names.sort()).toEqual([`${EARLIER}.pmtiles`, `${SAMPLE_TIMESTAMP}.pmtiles`]);
});
