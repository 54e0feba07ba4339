/**
 * Block sizing for keys whose under-admission bound is one point per replica: a replica that
 * runs ahead of the others (its leases came back sooner, theirs still queue requests Redis has
 * not seen) takes nothing speculative beyond its fair share of the window.
 */
import { planLease, type DemandView } from '../../../src/quota/lease-sizing';

/** The view of a replica that was measured to strand 9 of 100 points on a loaded machine. */
const ahead = (leasedNet: number, sharedRemaining: number): DemandView => ({
  sharedRemaining,
  lastLeaseAt: 1000,
  firstBefore: 0,
  firstAt: 0,
  othersRate: 0,
  leasedNet,
  spent: leasedNet,
  replicas: 3,
  rate: 4000,
  maxNeed: 14,
});

describe('planLease', () => {
  test('a replica past its fair share of a small limit asks only for what is waiting', () => {
    // Leased 31 of 100 with 3 replicas, 53 left: a share of 53 would be 13 points.
    expect(planLease(ahead(31, 53), 100, 1, 1000, true).asked).toBe(2);
    expect(planLease(ahead(40, 53), 100, 1, 1000, true).asked).toBe(1);
    expect(planLease(ahead(40, 53), 100, 5, 1000, true).asked).toBe(5);
  });

  test('below its fair share a replica still takes a block (the share of the rest binds)', () => {
    expect(planLease(ahead(8, 92), 100, 14, 1000, true).asked).toBe(23);
  });

  test('limits with a 1 % tail are not held to the fair share', () => {
    expect(planLease(ahead(500, 3000), 10_000, 1, 1000, true).asked).toBeGreaterThan(100);
  });
});
