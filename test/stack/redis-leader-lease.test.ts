/**
 * The ingest leader lease on a real Redis: one holder at a time, renewal keeps it, only the
 * holder can give it up, and a holder that stops renewing loses it after the TTL, so a crashed
 * leader is replaced within one lease period (src/adapters/redis/leader-lease.ts).
 */
import type { RedisClient } from '../../src/adapters/redis/client';
import { createRedisLeaderLease } from '../../src/adapters/redis/leader-lease';
import { useRedis } from '../harness/redis-fixture';
import { reportFigure, waitFor } from '../harness/wait';

const redis = useRedis();
let client: RedisClient;

beforeAll(async () => {
  client = await redis.client('test-ingest', 1000);
});

function leases(key: string, ttlMs: number) {
  const make = (owner: string) => createRedisLeaderLease({ client, key, owner, ttlMs });
  return { a: make('worker-a'), b: make('worker-b') };
}

it('one holder at a time; renewing keeps it and pushes the expiry out', async () => {
  const { a, b } = leases('lease:one-holder', 10_000);
  expect(await a.acquire()).toBe(true);
  expect(await b.acquire()).toBe(false);
  expect(await client.get('lease:one-holder')).toBe('worker-a');

  await client.pexpire('lease:one-holder', 500); // as if most of the TTL had passed
  expect(await a.acquire()).toBe(true); // renewal
  expect(await client.pttl('lease:one-holder')).toBeGreaterThan(5000);
  expect(await b.acquire()).toBe(false);
});

it('only the holder releases it; after release another worker takes it at once', async () => {
  const { a, b } = leases('lease:release', 10_000);
  expect(await a.acquire()).toBe(true);
  await b.release(); // not the holder: a no-op
  expect(await client.get('lease:release')).toBe('worker-a');
  expect(await b.acquire()).toBe(false);
  await a.release();
  expect(await client.exists('lease:release')).toBe(0);
  expect(await b.acquire()).toBe(true);
  expect(await a.acquire()).toBe(false);
});

it('a holder that stops renewing loses the lease after the TTL', async () => {
  const ttlMs = 300;
  const { a, b } = leases('lease:expiry', ttlMs);
  expect(await a.acquire()).toBe(true);
  const takenAt = Date.now();
  const waitedMs = await waitFor(() => b.acquire(), 5000, 'the lease passing to b', 20);
  // Not before the TTL ran out: b was refused until then.
  expect(Date.now() - takenAt).toBeGreaterThanOrEqual(ttlMs - 100);
  reportFigure(`lease handed over after a ${ttlMs} ms TTL`, waitedMs);
  // The old holder cannot renew a lease it lost, and cannot release the new holder's.
  expect(await a.acquire()).toBe(false);
  await a.release();
  expect(await client.get('lease:expiry')).toBe('worker-b');
});
