/**
 * Bucket notifications against a real S3 endpoint. s3rver has none (it answers the request
 * with a listing): the watch must say so once, without throwing, and stop cleanly. A store
 * that cannot be reached is reported as not (yet) supported. With MinIO (container backend),
 * a created archive is reported by name.
 */
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { createS3Client, type S3Client } from '../../src/adapters/s3/client';
import { watchBucketNotifications } from '../../src/adapters/s3/bucket-notifications';
import { createSilentLogger } from '../../src/logger';
import { startS3, type S3TestServer } from '../harness/s3-server';
import { reportFigure } from '../harness/wait';

jest.setTimeout(30_000);

const PREFIX = 'events/';
let s3: S3TestServer;
let client: S3Client;

function settings(endpoint: string) {
  return { endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, region: s3.region };
}

async function unusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

beforeAll(async () => {
  s3 = await startS3();
  client = createS3Client(settings(s3.endpoint), { timeoutMs: 2000 });
});

afterAll(async () => {
  client?.close();
  await s3?.stop();
});

/** Decided by the jest global setup before collection (test/harness/global-setup.ts). */
const onMinio = process.env['RADAR_TEST_BACKEND'] === 'container';
const onlyOnMinio = onMinio ? it : it.skip;
const onlyOnS3rver = onMinio ? it.skip : it;
if (!onMinio)
  console.info(
    `[skip] MinIO bucket notifications: needs the container backend (MinIO); this run uses local s3rver (${process.env['RADAR_TEST_BACKEND_REASON'] ?? 'local'}), which has no notifications`,
  );

onlyOnS3rver(
  '[s3rver] reports notifications unsupported without throwing, and stops cleanly',
  async () => {
    const created: string[] = [];
    const messages: string[] = [];
    const logger = createSilentLogger();
    logger.info = ((_obj: unknown, msg: string) => void messages.push(msg)) as typeof logger.info;
    const watch = await watchBucketNotifications({
      client,
      bucket: s3.bucket,
      prefix: PREFIX,
      logger,
      onObjectCreated: (name) => created.push(name),
    });
    expect(watch.supported()).toBe(false);
    expect(messages.filter((m) => /unsupported/.test(m))).toHaveLength(1);
    await s3.put(`${PREFIX}202405061200.pmtiles`, Buffer.from('x'));
    await watch.stop();
    expect(created).toEqual([]);
    expect(client.sockets().busy).toBe(0);
  },
);

it('an unreachable store: resolves after the start timeout as not supported, keeps retrying, stops', async () => {
  const down = createS3Client(settings(`http://127.0.0.1:${await unusedPort()}`), {
    timeoutMs: 300,
  });
  const started = Date.now();
  const watch = await watchBucketNotifications({
    client: down,
    bucket: s3.bucket,
    prefix: PREFIX,
    logger: createSilentLogger(),
    onObjectCreated: () => {},
    retryMinMs: 50,
  });
  // Resolves after the 300 ms start timeout instead of waiting on the retries (wide bound).
  reportFigure('unreachable store: watch resolved after', Date.now() - started);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(watch.supported()).toBe(false);
  await new Promise((r) => setTimeout(r, 200));
  await watch.stop();
  down.close();
});

onlyOnMinio(
  '[MinIO] a created archive is reported by its name relative to the prefix',
  async () => {
    const created: string[] = [];
    const watch = await watchBucketNotifications({
      client,
      bucket: s3.bucket,
      prefix: PREFIX,
      logger: createSilentLogger(),
      onObjectCreated: (name) => created.push(name),
    });
    try {
      expect(watch.supported()).toBe(true);
      await s3.put(`${PREFIX}202405061200.pmtiles`, Buffer.from('x'));
      await s3.put('elsewhere/202405061200.pmtiles', Buffer.from('x'));
      const started = Date.now();
      while (!created.includes('202405061200.pmtiles') && Date.now() - started < 10_000) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(created).toEqual(['202405061200.pmtiles']);
    } finally {
      await watch.stop();
    }
  },
);
