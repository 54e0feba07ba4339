/**
 * The Redis usage store on a real Redis: batches of several replicas add up per key and hour,
 * each batch number is applied once per source (a retry after a lost reply adds nothing), hours
 * expire after the retention, values stay exact past 2^32, a damaged stored value is replaced
 * rather than blocking every later batch, and a batch whose reply never came back (Redis
 * frozen past the command timeout, then resumed: the command runs late) is not added again
 * when the flusher sends it a second time.
 */
import {
  closeRedisClient,
  createRedisClient,
  waitForRedisReady,
  type RedisClient,
} from '../../src/adapters/redis/client';
import { usageAppliedKey, usageHourKey, usageRankKey } from '../../src/adapters/redis/keys';
import { createRedisUsageStore } from '../../src/adapters/redis/usage-store';
import type { UsageStore } from '../../src/domain/usage-ports';
import { HOUR_MS, hourLabel, hourOf, type UsageEntry } from '../../src/domain/usage';
import { createSilentLogger } from '../../src/logger';
import { startRedis, type RedisServer } from '../harness/redis-server';
import { waitFor } from '../harness/wait';

const logger = createSilentLogger();
let redis: RedisServer;
let client: RedisClient;
let store: UsageStore;
const H = hourOf(Date.now());

beforeAll(async () => {
  redis = await startRedis();
  client = createRedisClient(redis.url, { role: 'api', logger, commandTimeoutMs: 300 });
  await waitForRedisReady(client, 5000);
  store = createRedisUsageStore({ client, retentionDays: 3, logger });
});
beforeEach(() => client.flushall());
afterAll(async () => {
  await closeRedisClient(client);
  await redis?.stop();
});

const entry = (keyId: string, hour: number, requests: number, bytes = 0): UsageEntry => ({
  keyId,
  hour,
  counts: { requests, bytes, 'status:206': requests, 'route:/tiles/:timestamp.pmtiles': requests },
});

it('adds the batches of several sources per key and hour, and ranks keys by requests', async () => {
  await store.apply({ source: 'a', seq: 1, entries: [entry('acme', H, 5, 100), entry('b', H, 1)] });
  await store.apply({ source: 'b', seq: 1, entries: [entry('acme', H, 2, 7)] });
  await store.apply({ source: 'b', seq: 2, entries: [entry('acme', H - 1, 1), entry('c', H, 9)] });
  const now = await store.read(H, H);
  expect(now.find((e) => e.keyId === 'acme')!.counts).toEqual({
    requests: 7,
    bytes: 107,
    'status:206': 7,
    'route:/tiles/:timestamp.pmtiles': 7,
  });
  expect(await store.read(H - 1, H, ['acme', 'nobody'])).toHaveLength(2);
  expect(await store.top(H, 2)).toEqual([
    { keyId: 'c', requests: 9 },
    { keyId: 'acme', requests: 7 },
  ]);
  // Stored as readable JSON, slashes unescaped.
  expect(await client.hget(usageHourKey(hourLabel(H)), 'acme')).toBe(
    '{"bytes":107,"requests":7,"route:/tiles/:timestamp.pmtiles":7,"status:206":7}',
  );
});

it('applies a batch number once per source, however often it is sent', async () => {
  const batch = { source: 'a', seq: 1, entries: [entry('acme', H, 3)] };
  await store.apply(batch);
  await store.apply(batch);
  await store.apply({ ...batch, seq: 2 });
  await store.apply({ ...batch, seq: 1 });
  expect((await store.read(H, H))[0]!.counts.requests).toBe(6);
  expect(await client.get(usageAppliedKey('a'))).toBe('2');
  const markerTtl = await client.ttl(usageAppliedKey('a'));
  expect(markerTtl).toBeGreaterThan(3 * 86_400 - 60);
  expect(markerTtl).toBeLessThanOrEqual(3 * 86_400);
});

it('expires each hour the retention after it ends', async () => {
  await store.apply({ source: 'a', seq: 1, entries: [entry('acme', H, 1)] });
  const expected = Math.floor(((H + 1) * HOUR_MS) / 1000) + 3 * 86_400;
  for (const key of [usageHourKey(hourLabel(H)), usageRankKey(hourLabel(H))])
    expect(Number(await client.call('EXPIRETIME', key))).toBe(expected);
  // An hour already past its retention (a very long outage) is gone at once.
  const old = H - 3 * 24 - 2;
  await store.apply({ source: 'a', seq: 2, entries: [entry('acme', old, 1)] });
  expect(await client.exists(usageHourKey(hourLabel(old)))).toBe(0);
});

it('keeps values exact past 2^32 and up to 2^53', async () => {
  const big = 2 ** 52 + 1;
  await store.apply({ source: 'a', seq: 1, entries: [entry('acme', H, 1, big)] });
  await store.apply({ source: 'a', seq: 2, entries: [entry('acme', H, 1, 2 ** 32)] });
  expect((await store.read(H, H))[0]!.counts.bytes).toBe(big + 2 ** 32);
});

it('replaces a stored value that is not JSON instead of failing every later batch', async () => {
  await client.hset(usageHourKey(hourLabel(H)), 'acme', 'garbage');
  await store.apply({ source: 'a', seq: 1, entries: [entry('acme', H, 2)] });
  expect((await store.read(H, H))[0]!.counts.requests).toBe(2);
});

it('skips a stored value that is not a counts object when reading', async () => {
  await client.hset(
    usageHourKey(hourLabel(H)),
    'weird',
    '{"requests":-1}',
    'fine',
    '{"requests":1}',
  );
  expect((await store.read(H, H)).map((e) => e.keyId)).toEqual(['fine']);
});

it('a batch whose reply was lost (Redis frozen, the command ran late) is not added twice', async () => {
  const batch = { source: 'frozen', seq: 1, entries: [entry('acme', H, 4)] };
  await redis.pause();
  try {
    // The command is on the socket; the reply cannot come within the 300 ms timeout.
    await expect(store.apply(batch)).rejects.toThrow(/timed? ?out/i);
  } finally {
    await redis.resume();
  }
  // Redis runs the queued script once it thaws; the flusher then sends the batch again.
  await waitFor(
    async () => (await client.get(usageAppliedKey('frozen'))) === '1',
    5000,
    'late apply',
  );
  await store.apply(batch);
  expect((await store.read(H, H))[0]!.counts.requests).toBe(4);
});
