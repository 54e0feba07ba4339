/**
 * A key's window on a real Redis across the events that used to bend it: a Redis stall whose
 * late lease calls ran when it resumed, a limit changed mid-window, an outage whose admissions
 * in memory Redis never heard of, and the announced `X-RateLimit-Reset`. Each replica is a
 * limiter on its own connection, as separate processes have.
 */
import type { RedisClient } from '../../src/adapters/redis/client';
import {
  guardArguments,
  LEASE_SCRIPT,
  leaseDuration,
  type LeaseGuard,
} from '../../src/adapters/redis/lease-script';
import {
  createRedisRateLimiter,
  type RedisRateLimiter,
} from '../../src/adapters/redis/rate-limiter';
import { createSilentLogger } from '../../src/logger';
import { useRedis } from '../harness/redis-fixture';
import { reportFigure, waitFor } from '../harness/wait';

jest.setTimeout(60_000);

const logger = createSilentLogger();
const limiters: RedisRateLimiter[] = [];
const redis = useRedis({ beforeClose: () => Promise.all(limiters.map((l) => l.close())) });

async function replica(windowS: number, commandTimeoutMs = 500): Promise<RedisRateLimiter> {
  const client = await redis.client('test-api', commandTimeoutMs);
  const limiter = createRedisRateLimiter({ client, windowS, logger, sweepMs: 0 });
  limiters.push(limiter);
  return limiter;
}

async function allowedOf(
  runs: number,
  next: (i: number) => Promise<{ allowed: boolean }> | { allowed: boolean },
): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < runs; i += 1) if ((await next(i)).allowed) allowed += 1;
  return allowed;
}

/** Waits until every limiter has had a Redis call succeed again (probing another key). */
async function sharedAgain(fleet: RedisRateLimiter[]): Promise<void> {
  for (const limiter of fleet) {
    await waitFor(
      async () => {
        await limiter.consume('probe', 1_000_000);
        return !limiter.degraded();
      },
      10_000,
      'shared limits again',
      50,
    );
  }
}

const sleepUntil = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms - Date.now())));

describe('late lease calls after a stall', () => {
  test('the lease calls a frozen Redis runs when it resumes take nothing from the next window', async () => {
    const windowS = 5;
    const limit = 20;
    // A short command timeout: many calls time out (and queue in Redis) while it is frozen.
    const one = await replica(windowS, 200);
    const started = Date.now();
    expect(await allowedOf(2, () => one.consume('stall', limit))).toBe(2);
    await redis.server().pause();
    let during = 0;
    try {
      // Each request sends its own lease call; each times out and the insurance answers.
      while (Date.now() - started < (windowS - 2) * 1000) {
        if ((await one.consume('stall', limit)).allowed) during += 1;
      }
      // Frozen past the window's end: the window is over when Redis runs the queued calls.
      await sleepUntil(started + (windowS + 1) * 1000);
    } finally {
      await redis.server().resume();
    }
    reportFigure('requests answered in memory during the stall', during, 'requests');
    expect(during).toBeGreaterThan(0);
    await sharedAgain([one]);
    // A new window: the whole limit, whatever the late calls asked for.
    expect(await allowedOf(limit + 5, () => one.consume('stall', limit))).toBe(limit);
  });
});

describe('a changed limit', () => {
  test('keeps the key counter: lowering 3 to 2 after 3 requests refuses until the window ends', async () => {
    const [a, b] = [await replica(60), await replica(60)];
    const fleet = [a!, b!];
    expect(await allowedOf(3, (i) => fleet[i % 2]!.consume('relimit', 3))).toBe(3);
    expect(await allowedOf(4, (i) => fleet[i % 2]!.consume('relimit', 2))).toBe(0);
    // Raised to 5: exactly the 2 points the new limit adds.
    const raised = [];
    for (let i = 0; i < 4; i += 1) raised.push(await fleet[i % 2]!.consume('relimit', 5));
    expect(raised.map((d) => d.allowed)).toEqual([true, true, false, false]);
    expect(raised.every((d) => d.limit === 5)).toBe(true);
    expect(raised[1]!.remaining).toBe(0);
  });
});

describe('an outage within a window', () => {
  test('what the replicas admitted in memory counts in Redis when it returns (leases carry it)', async () => {
    const limit = 100;
    const [a, b] = [await replica(60), await replica(60)];
    await redis.server().kill();
    let during = 0;
    try {
      during += await allowedOf(40, () => a!.consume('outage', limit));
      during += await allowedOf(35, () => b!.consume('outage', limit));
    } finally {
      await redis.server().restart();
    }
    expect(during).toBe(75);
    await sharedAgain([a!, b!]);
    // The restarted Redis lost the key: the window that spans the outage still has 25 left.
    const after = await allowedOf(limit, (i) => (i % 2 === 0 ? a! : b!).consume('outage', limit));
    reportFigure('admitted after the outage, 75 admitted during it', after, 'requests');
    expect(during + after).toBeLessThanOrEqual(limit);
    // Under-admission bound: max(1 % of the limit, one point per replica).
    expect(during + after).toBeGreaterThanOrEqual(limit - 2);
  });

  test('a replica that gets no request after the outage still carries what it admitted', async () => {
    const limit = 100;
    const [a, b] = [await replica(60), await replica(60)];
    await redis.server().kill();
    let during = 0;
    try {
      during = await allowedOf(60, () => a!.consume('quiet', limit));
    } finally {
      await redis.server().restart();
    }
    await sharedAgain([a!, b!]);
    // Shutdown carries what is owed (a running replica does it on its next sweep).
    await a!.close();
    const after = await allowedOf(limit, () => b!.consume('quiet', limit));
    reportFigure('admitted on the other replica after the outage', after, 'requests');
    expect(during).toBe(60);
    expect(during + after).toBeLessThanOrEqual(limit);
    expect(after).toBeGreaterThanOrEqual(limit - during - 2);
  });

  test('each replica at the limit during the outage: replicas x limit in the window, then nothing', async () => {
    const limit = 10;
    const [a, b] = [await replica(60), await replica(60)];
    await redis.server().kill();
    let during = 0;
    try {
      during += await allowedOf(12, () => a!.consume('full', limit));
      during += await allowedOf(12, () => b!.consume('full', limit));
    } finally {
      await redis.server().restart();
    }
    expect(during).toBe(2 * limit);
    await sharedAgain([a!, b!]);
    expect(await allowedOf(20, (i) => (i % 2 === 0 ? a! : b!).consume('full', limit))).toBe(0);
  });
});

describe('X-RateLimit-Reset', () => {
  test('a request sent at the announced Reset second of an exhausted key is allowed', async () => {
    const [a, b] = [await replica(3), await replica(3)];
    expect(await allowedOf(2, (i) => (i % 2 === 0 ? a! : b!).consume('reset', 2))).toBe(2);
    const refused = await a!.consume('reset', 2);
    expect(refused.allowed).toBe(false);
    expect(refused.resetAtS).toBeGreaterThan(Date.now() / 1000);
    // At the announced second, not before it.
    await sleepUntil(refused.resetAtS * 1000);
    const again = await a!.consume('reset', 2);
    expect(again.allowed).toBe(true);
    expect((await b!.consume('reset', 2)).allowed).toBe(true);
  });
});

describe('the lease script guard', () => {
  let client: RedisClient;
  beforeAll(async () => {
    client = await redis.client('test-script');
  });
  const run = async (key: string, asked: number, guard: Partial<LeaseGuard>, known = false) => {
    const full: LeaseGuard = { expiresAtMs: 0, always: false, carry: 0, carryTtlMs: 0, ...guard };
    const duration = leaseDuration(60, { need: asked || 1, share: 1, tail: 0, exact: 0, known });
    return (await client.eval(
      LEASE_SCRIPT,
      1,
      key,
      String(asked),
      String(duration),
      '10',
      '60',
      ...guardArguments(full),
    )) as number[];
  };

  test('a call run after its expiry changes nothing, known or not, and says Redis time', async () => {
    await replica(60);
    const past = Date.now() - 1000;
    const reply = await run('guard-late', 3, { expiresAtMs: past });
    expect(reply[0]).toBe(-1);
    expect(reply[1]).toBeGreaterThan(past);
    expect(await client.exists('guard-late')).toBe(0);
    // A known call that finds its key gone (the window ended) must not open the next one.
    expect((await run('guard-late', 2, { expiresAtMs: past }, true))[0]).toBe(-1);
    expect(await client.exists('guard-late')).toBe(0);
    // With `always`, also a known call on a live key.
    await run('guard-live', 2, {});
    expect((await run('guard-live', 2, { expiresAtMs: past, always: true }, true))[0]).toBe(-1);
    expect(Number(await client.get('guard-live'))).toBe(2);
    // In time: applied.
    expect((await run('guard-live', 1, { expiresAtMs: Date.now() + 5000 }))[3]).toBe(1);
    expect(Number(await client.get('guard-live'))).toBe(3);
  });

  test('a carry creates a missing counter with the given TTL and never passes the limit', async () => {
    await replica(60);
    const [used, ttl, , granted] = await run('guard-carry', 0, { carry: 4, carryTtlMs: 20_000 });
    expect([used, granted]).toEqual([4, 0]);
    expect(ttl).toBeGreaterThan(19_000);
    expect(ttl).toBeLessThanOrEqual(20_000);
    // Carried before the lease: 4 + 5 carried leave 1 point of the limit of 10.
    expect((await run('guard-carry', 3, { carry: 5, carryTtlMs: 20_000 }))[3]).toBe(1);
    expect(Number(await client.get('guard-carry'))).toBe(10);
    await run('guard-carry', 0, { carry: 7, carryTtlMs: 20_000 });
    expect(Number(await client.get('guard-carry'))).toBe(10);
  });
});
