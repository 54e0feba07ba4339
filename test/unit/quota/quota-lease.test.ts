/**
 * The lease book's decisions when the store fails: every request that waited on a failed lease
 * spends a point of its own in the insurance limiter (here a plain counter with the same limit).
 * And at a lease's deadline, on a clock the test moves: held points are spendable before it and
 * void at it (every comparison with the deadline: take, refill, sweep, release, window), so no
 * request is admitted from an ended window at the instant it ends.
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

/**
 * A store that grants every point asked, in a window of `windowMs` from the first call, on a
 * clock the test moves by hand. Records each lease call.
 */
function grantingStore(windowMs: number) {
  let now = 1_000;
  const calls: Array<{ at: number; points: number }> = [];
  let used = 0;
  let windowEnd = 0;
  const handedBack: number[] = [];
  const quota = createQuotaLease({
    clock: () => now,
    lease: async (_key, _limit, points) => {
      calls.push({ at: now, points });
      if (now >= windowEnd) {
        windowEnd = now + windowMs;
        used = 0;
      }
      used += points;
      return {
        granted: points,
        used,
        msLeft: windowEnd - now,
        windowEndS: windowEnd / 1000,
        carried: 0,
      };
    },
    insure: () => Promise.reject(new Error('no insurance in this test')),
    handBack: (_key, _limit, points) => void handedBack.push(points),
    degraded: () => false,
  });
  return {
    quota,
    calls,
    handedBack,
    setClock: (ms: number) => void (now = ms),
  };
}

describe('a lease at its deadline (held points are void from the deadline on)', () => {
  const windowMs = 60_000;

  /** A book holding points for 'k', leased at t = 1000: its deadline is 1000 + windowMs. */
  async function leased() {
    const store = grantingStore(windowMs);
    await store.quota.take('k', 1000);
    expect(store.calls).toHaveLength(1);
    expect(store.quota.held('k', 1000)).toBeGreaterThan(0);
    return { ...store, deadline: 1_000 + windowMs };
  }

  it('a take one millisecond before the deadline spends a held point, without a call', async () => {
    const { quota, calls, setClock, deadline } = await leased();
    setClock(deadline - 1);
    const decision = await quota.take('k', 1000);
    expect(decision.allowed).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it('a take at exactly the deadline leases anew (a refill), never spending a held point', async () => {
    const { quota, calls, setClock, deadline } = await leased();
    setClock(deadline);
    const decision = await quota.take('k', 1000);
    expect(decision.allowed).toBe(true);
    expect(calls).toEqual([expect.anything(), expect.objectContaining({ at: deadline })]);
    // The new window's decision: it ends a whole window after the refill.
    expect(decision.msLeft).toBe(windowMs);
  });

  it('at exactly the deadline the window is unknown, a sweep drops the entry, and nothing is handed back', async () => {
    const first = await leased();
    first.setClock(first.deadline);
    expect(first.quota.window('k')).toBeUndefined();
    first.quota.sweep();
    expect(first.quota.held('k', 1000)).toBe(0);
    expect(first.handedBack).toEqual([]); // the ended window's points go nowhere

    const second = await leased();
    second.setClock(second.deadline);
    second.quota.releaseAll();
    expect(second.handedBack).toEqual([]);
  });
});
