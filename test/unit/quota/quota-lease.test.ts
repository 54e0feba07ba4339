/**
 * The lease book's decisions when the store fails: every request that waited on a failed lease
 * spends a point of its own in the insurance limiter (here a plain counter with the same limit).
 */
import { createQuotaLease } from '../../../src/quota/quota-lease';
import type { LeaseDecision } from '../../../src/quota/quota-lease-types';

/** A lease call that fails after `ms`, as one to a frozen Redis does. */
function failingStore(limit: number, ms: number) {
  let insured = 0;
  const insure = async (): Promise<LeaseDecision> => {
    insured += 1;
    return insured <= limit
      ? { allowed: true, remaining: limit - insured, msLeft: 10_000 }
      : { allowed: false, remaining: 0, msLeft: 10_000 };
  };
  const quota = createQuotaLease({
    // Redis failed: nothing taken (the caller falls back on the insurance).
    lease: () => new Promise((r) => setTimeout(() => r(undefined), ms)),
    insure,
    handBack: () => {},
    degraded: () => true,
  });
  return { quota, insuredCount: () => insured };
}

it('40 concurrent requests on a lease that fails over: each spends its own insurance point', async () => {
  const { quota, insuredCount } = failingStore(5, 20);
  const decisions = await Promise.all(
    Array.from({ length: 40 }, () => Promise.resolve(quota.take('k', 5))),
  );
  expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
  expect(insuredCount()).toBe(40);
  // Later bursts find the key exhausted in the insurance as well.
  const again = await Promise.all(
    Array.from({ length: 40 }, () => Promise.resolve(quota.take('k', 5))),
  );
  expect(again.filter((d) => d.allowed)).toHaveLength(0);
});
