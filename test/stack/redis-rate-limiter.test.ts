/**
 * Shared rate limits on a real Redis: exact across two replicas while Redis is up, fail-open
 * per replica through the insurance limiter while it is down, shared again soon after it
 * returns.
 */
import {
  createRedisRateLimiter,
  type RedisRateLimiter,
} from '../../src/adapters/redis/rate-limiter';
import type { RateDecision } from '../../src/domain/ports';
import { createSilentLogger } from '../../src/logger';
import { useRedis } from '../harness/redis-fixture';
import { reportFigure, waitFor } from '../harness/wait';

const logger = createSilentLogger();
const redis = useRedis();

/**
 * One replica's limiter on its own connection, as a separate process would have, with the
 * production defaults (500 ms command timeout, reconnect backoff capped at 1 s).
 */
async function replica(onDegraded?: (degraded: boolean) => void): Promise<RedisRateLimiter> {
  const client = await redis.client('test-api');
  return createRedisRateLimiter({
    client,
    windowS: 60,
    logger,
    ...(onDegraded ? { onDegraded } : {}),
  });
}

describe('Redis rate limiter on a real Redis', () => {
  test('limit 10, 20 requests alternating between two replicas: exactly 10 allowed, consistent headers', async () => {
    const replicas = [await replica(), await replica()];
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 20; i += 1) decisions.push(await replicas[i % 2]!.consume('key-exact', 10));

    const allowed = decisions.filter((d) => d.allowed);
    const denied = decisions.filter((d) => !d.allowed);
    expect(allowed).toHaveLength(10);
    expect(denied).toHaveLength(10);
    expect(decisions.slice(0, 10).every((d) => d.allowed)).toBe(true);
    expect(allowed.map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(denied.every((d) => d.remaining === 0 && d.limit === 10)).toBe(true);
    // One window shared by both replicas: the same reset (to rounding) on every answer.
    const resets = decisions.map((d) => d.resetAtS);
    expect(Math.max(...resets) - Math.min(...resets)).toBeLessThanOrEqual(1);
    const nowS = Date.now() / 1000;
    expect(resets[0]).toBeGreaterThan(nowS + 55);
    expect(resets[0]).toBeLessThanOrEqual(Math.ceil(nowS + 60));
    expect(denied.every((d) => d.retryAfterS >= 1 && d.retryAfterS <= 60)).toBe(true);
    expect(replicas.every((r) => !r.degraded())).toBe(true);
  });

  test('limits are per key and per limit value', async () => {
    const [a, b] = [await replica(), await replica()];
    expect((await a.consume('key-one', 2)).remaining).toBe(1);
    expect((await b.consume('key-two', 2)).remaining).toBe(1);
    expect((await b.consume('key-one', 2)).remaining).toBe(0);
    expect((await a.consume('key-one', 2)).allowed).toBe(false);
    // A changed limit keeps the key's count: it applies to the 2 points already spent.
    expect((await a.consume('key-one', 5)).remaining).toBe(2);
  });

  test('Redis down: fail open through the insurance limiter, shared again within 2 s of Redis returning', async () => {
    const transitions: boolean[] = [];
    const one = await replica((d) => transitions.push(d));
    const two = await replica();
    expect((await one.consume('key-outage', 3)).allowed).toBe(true);
    expect(one.degraded()).toBe(false);

    await redis.server().kill();
    // In memory, per replica: each replica grants the limit on its own, less what it spent in
    // the window before (one point here).
    const during = [await one.consume('key-outage', 3), await one.consume('key-outage', 3)];
    expect(during.every((d) => d.allowed && d.limit === 3)).toBe(true);
    expect(during.map((d) => d.remaining)).toEqual([1, 0]);
    expect((await one.consume('key-outage', 3)).allowed).toBe(false);
    expect((await two.consume('key-outage', 3)).allowed).toBe(true);
    expect(one.degraded()).toBe(true);
    expect(two.degraded()).toBe(true);
    expect(transitions).toEqual([true]);

    // A real outage lasts: long enough for the reconnect backoff to reach its 1 s cap.
    await new Promise((r) => setTimeout(r, 1500));
    await redis.server().restart();
    const restartedAt = Date.now();
    // Shared again as soon as the connection is back (requests keep arriving meanwhile).
    await waitFor(
      async () => {
        await one.consume('key-probe', 1000);
        return !one.degraded();
      },
      5000,
      'shared limits again',
    );
    reportFigure('shared limits again after the restart', Date.now() - restartedAt);
    expect(transitions).toEqual([true, false]);
    await waitFor(
      async () => {
        await two.consume('key-probe', 1000);
        return !two.degraded();
      },
      5000,
      'second replica shared again',
    );

    // Exact again across replicas (the restarted Redis starts a fresh window).
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 6; i += 1)
      decisions.push(await (i % 2 === 0 ? one : two).consume('key-after', 4));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, false, false]);
    expect(one.degraded() || two.degraded()).toBe(false);
  });

  test('a frozen Redis costs at most the command timeout, then the insurance limiter answers', async () => {
    const limiter = await replica();
    await limiter.consume('key-frozen', 5);
    await redis.server().pause();
    try {
      const started = Date.now();
      const decision = await limiter.consume('key-frozen', 5);
      expect(decision.allowed).toBe(true);
      expect(limiter.degraded()).toBe(true);
      // Bounded by the 500 ms command timeout; a hang would sit here until the frozen Redis
      // resumes. Wide bound, figure reported.
      const frozenMs = Date.now() - started;
      reportFigure('consume on a frozen Redis', frozenMs);
      expect(frozenMs).toBeLessThan(5000);
    } finally {
      await redis.server().resume();
    }
    await waitFor(
      async () => {
        await limiter.consume('key-frozen-probe', 1000);
        return !limiter.degraded();
      },
      5000,
      'shared again after resume',
    );
  });
});
