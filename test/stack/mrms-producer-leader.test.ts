/**
 * Two MRMS producers (built processes) with one Redis: one holds the leader lease and
 * converts every frame once, the other converts nothing; when the leader stops, the other
 * takes over and converts only the frame that is new.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startProducer, type ProducerProcess } from '../harness/mrms-producer';
import { startRedis, type RedisServer } from '../harness/redis-server';
import { waitFor } from '../harness/wait';
import { SAMPLE_TIME_MS, sampleFrameAt } from '../fixtures/mrms-frames';
import { formatTimestamp } from '../../src/domain/timestamps';

jest.setTimeout(240_000);

const CONVERTED = 'radar_mrms_frames_converted_total';
const SKIPPED = 'radar_mrms_frames_skipped_total';

let root: string;
let feed: string;
let out: string;
let redis: RedisServer;
const producers: ProducerProcess[] = [];

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-leader-'));
  feed = path.join(root, 'feed', '20230406');
  out = path.join(root, 'data');
  await fs.mkdir(feed, { recursive: true });
  for (const minutes of [-4, -2, 0]) await addFrame(minutes);
  redis = await startRedis();
});

afterAll(async () => {
  for (const p of producers) await p.stop();
  await redis?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

async function addFrame(minutes: number): Promise<void> {
  const frame = sampleFrameAt(SAMPLE_TIME_MS + minutes * 60_000);
  const temp = path.join(feed, `.${frame.name}.tmp`);
  await fs.writeFile(temp, frame.bytes);
  await fs.rename(temp, path.join(feed, frame.name)); // appears whole, as a mirror would write it
}

const archives = async () =>
  (await fs.readdir(out).catch(() => [] as string[])).filter((f) => f.endsWith('.pmtiles')).sort();

const total = async (series: string) =>
  (await Promise.all(producers.map((p) => p.value(series)))).reduce((a, b) => a + b, 0);

it('one leader converts each frame once; the other takes over and converts only what is new', async () => {
  const env = {
    REDIS_URL: redis.url,
    RADAR_DATA_DIR: out,
    MRMS_SOURCE: path.join(root, 'feed'),
  };
  producers.push(...(await Promise.all([startProducer(env, root), startProducer(env, root)])));
  const leaders = async () => Promise.all(producers.map((p) => p.value('radar_mrms_leader')));
  // Each takes its first look at the lease once Redis answers; one of them wins it.
  await waitFor(
    async () => (await leaders()).reduce((a, b) => a + b, 0) === 1,
    60_000,
    'one leader',
    100,
  );
  const leader = producers[(await leaders()).indexOf(1)]!;
  const follower = producers.find((p) => p !== leader)!;

  await leader.waitForValue(CONVERTED, 3);
  expect(await archives()).toEqual(
    [-4, -2, 0].map((m) => `${formatTimestamp(SAMPLE_TIME_MS + m * 60_000)}.pmtiles`),
  );
  // The follower never worked: nothing converted, nothing even looked at.
  expect(await follower.value(CONVERTED)).toBe(0);
  expect(await follower.value(SKIPPED)).toBe(0);
  expect(await follower.value('radar_mrms_leader')).toBe(0);
  expect(await total(CONVERTED)).toBe(3);

  // The leader goes away (SIGTERM: it releases the lease), then a new file arrives.
  expect(await leader.value(CONVERTED)).toBe(3);
  expect(await leader.stop()).toBe(0);
  await addFrame(2);
  await follower.waitForValue('radar_mrms_leader', 1, 60_000);
  await follower.waitForValue(CONVERTED, 1);
  // It found the three frames published and converted only the new one: four in all.
  expect(await follower.value(SKIPPED)).toBe(3);
  expect(await follower.value(CONVERTED)).toBe(1);
  expect(await archives()).toHaveLength(4);
});
