/**
 * The ledger of points admitted in memory during an outage: each is carried to Redis once,
 * a claim in flight is never claimed again, a failed carry stays owed, an ended window is
 * forgotten.
 */
import { createOutageLedger } from '../../../src/quota/outage-ledger';

function ledgerAt() {
  let now = 1000;
  const ledger = createOutageLedger(() => now);
  return { ledger, advance: (ms: number) => (now += ms) };
}

it('carries each admitted point once, with what is left of its window', () => {
  const { ledger, advance } = ledgerAt();
  for (let i = 0; i < 3; i += 1) ledger.admit('k', 10, 5000);
  advance(1000);
  const carry = ledger.claim('k');
  expect(carry).toMatchObject({ keyId: 'k', limit: 10, points: 3, ttlMs: 4000 });
  // In flight: neither a lease nor the flush claims the same points again.
  expect(ledger.claim('k')).toBeUndefined();
  expect(ledger.claimAll()).toEqual([]);
  ledger.admit('k', 10, 4000);
  expect(ledger.claim('k')?.points).toBe(1);
  ledger.settle(carry!, true);
  expect(ledger.owed('k')).toBe(1);
});

it('a carry that failed stays owed; one that ran is no longer owed', () => {
  const { ledger } = ledgerAt();
  ledger.admit('k', 10, 5000);
  ledger.admit('j', 20, 5000);
  const [first, second] = ledger.claimAll();
  ledger.settle(first!, false);
  ledger.settle(second!, true);
  expect(ledger.owed(first!.keyId)).toBe(1);
  expect(ledger.owed(second!.keyId)).toBe(0);
  expect(ledger.claimAll().map((c) => c.keyId)).toEqual([first!.keyId]);
});

it('forgets points whose window has ended, and a late settle does not touch the next window', () => {
  const { ledger, advance } = ledgerAt();
  ledger.admit('k', 10, 2000);
  const stale = ledger.claim('k');
  advance(2000);
  expect(ledger.owed('k')).toBe(0);
  ledger.admit('k', 10, 3000);
  ledger.settle(stale!, true);
  expect(ledger.owed('k')).toBe(1);
  expect(ledger.claim('k')).toMatchObject({ points: 1, ttlMs: 3000 });
});
