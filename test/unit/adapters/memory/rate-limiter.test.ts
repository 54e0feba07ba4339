/**
 * The in-memory limiter (embedded mode): one counter per key whatever its limit, so a limit
 * changed mid-window applies to what the key already spent, and a refused request spends
 * nothing.
 */
import { createMemoryRateLimiter } from '../../../../src/adapters/memory/rate-limiter';

const allowedOf = async (
  limiter: ReturnType<typeof createMemoryRateLimiter>,
  n: number,
  limit: number,
) => {
  let allowed = 0;
  for (let i = 0; i < n; i += 1) if ((await limiter.consume('k', limit)).allowed) allowed += 1;
  return allowed;
};

it('a limit lowered mid-window applies to what was spent: 3 spent, new limit 2, refused', async () => {
  const limiter = createMemoryRateLimiter(60);
  expect(await allowedOf(limiter, 3, 3)).toBe(3);
  const lowered = await limiter.consume('k', 2);
  expect(lowered).toMatchObject({ allowed: false, limit: 2, remaining: 0 });
  expect(await allowedOf(limiter, 5, 2)).toBe(0);
});

it('a limit raised mid-window admits exactly the difference (refusals spent nothing)', async () => {
  const limiter = createMemoryRateLimiter(60);
  expect(await allowedOf(limiter, 10, 3)).toBe(3);
  const raised = [];
  for (let i = 0; i < 4; i += 1) raised.push(await limiter.consume('k', 5));
  expect(raised.map((d) => d.allowed)).toEqual([true, true, false, false]);
  expect(raised.map((d) => d.remaining)).toEqual([1, 0, 0, 0]);
});

it('concurrent requests at the limit: exactly the limit allowed, the window keeps its end', async () => {
  const limiter = createMemoryRateLimiter(60);
  const decisions = await Promise.all(
    Array.from({ length: 50 }, () => Promise.resolve(limiter.consume('k', 7))),
  );
  expect(decisions.filter((d) => d.allowed)).toHaveLength(7);
  const resets = new Set(decisions.map((d) => d.resetAtS));
  expect(Math.max(...resets) - Math.min(...resets)).toBeLessThanOrEqual(1);
});
