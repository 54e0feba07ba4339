/**
 * Leased shared quota: a replica takes a *block* of points from a key's shared counter in one
 * atomic call and spends it locally, so most requests cost no Redis round trip. The shared
 * counter never grants past the limit (the capped lease script), so the fleet never admits
 * more than `limit` per window while Redis answers, whatever the block sizes.
 *
 * Block size (why it adapts; `lease-sizing.ts`, `lease-script.ts`): a block held by one
 * replica is invisible to the others, so a large block near the end of the quota would refuse
 * requests elsewhere while points sit unspent. The requests waiting on this replica are
 * granted first (an exact, batched decision); on top, the store grants a share of the
 * remaining quota *as Redis holds it*, sized so that this replica spends it before the others
 * have used up the rest, plus a small tail allowance; and at most about `HORIZON_S` of this
 * replica's own demand. A replica whose grant brought the counter to the limit refuses
 * locally once its block is spent.
 *
 * `X-RateLimit-Remaining` per replica is `limit - counter at this replica's last lease +
 * points it still holds`, never rising within a window: it falls by one per local request and
 * by at least one at each lease. It exceeds the fleet-wide truth (limit minus admitted
 * requests) by at most the points other replicas leased since this replica's last lease.
 *
 * One book entry per key, whatever its limit (the counter in Redis is one per key): a changed
 * limit hands the held block back and the next lease asks Redis under the new limit, which
 * applies to the points already spent. When a lease's Redis call fails, the request that sent
 * it and every request that waited on it take one point each from the insurance limiter
 * (`insure`); the entry keeps what the replica knows of the window, so the insurance can count
 * the points this replica already spent in it (`window`).
 */

import type { KnownWindow, LeaseDecision, QuotaLeaseOptions } from './quota-lease-types';
import { applyGrant, FAILED, GRANTED, type Lease, type LeaseOutcome } from './lease-entry';
import { INITIAL_REPLICAS, planLease } from './lease-sizing';

/** A block untouched this long goes back to the shared counter. */
export const IDLE_HAND_BACK_MS = 2000;

/** Per-replica book of leased blocks, one entry per key. */
export interface QuotaLease {
  /** One point for `keyId`: from a held block when possible (no I/O), else a new lease. */
  take(keyId: string, limit: number): LeaseDecision | Promise<LeaseDecision>;
  /** Hands back blocks idle for `IDLE_HAND_BACK_MS` and forgets ended windows. */
  sweep(): void;
  /** Hands back every held point (shutdown). */
  releaseAll(): void;
  /** Points currently held locally for `keyId` at `limit` (tests, metrics). */
  held(keyId: string, limit: number): number;
  /** The key's current window as this replica knows it from its leases; none: undefined. */
  window(keyId: string): KnownWindow | undefined;
}

export function createQuotaLease(options: QuotaLeaseOptions): QuotaLease {
  const clock = options.clock ?? (() => performance.now());
  const book = new Map<string, Lease>();

  const spend = (lease: Lease, now: number): LeaseDecision => {
    lease.points -= 1;
    lease.spent += 1;
    lease.lastUseAt = now;
    lease.reported = Math.min(lease.reported, lease.sharedRemaining + lease.points);
    return { allowed: true, remaining: lease.reported, msLeft: lease.endsBy - now };
  };

  /**
   * Hands the held block back to the window it came from: the shared counter no longer counts
   * it, nor does the entry. Returns the points handed back.
   */
  const giveBack = (lease: Lease): number => {
    const points = lease.points;
    options.handBack(lease.keyId, lease.limit, points, lease.windowEndS);
    lease.lastUsed -= points;
    lease.leasedNet -= points;
    lease.points = 0;
    return points;
  };

  /** A new limit for a key: the held block goes back, the next lease asks under the new one. */
  const relimit = (lease: Lease, limit: number) => {
    if (lease.points > 0) giveBack(lease);
    lease.limit = limit;
    lease.sharedRemaining = Math.max(0, limit - lease.lastUsed);
    lease.reported = lease.sharedRemaining;
    lease.exhausted = false;
  };

  /**
   * The decision a lease's outcome settles for a request that sent or waited on it: a point
   * from the insurance when Redis failed, the denial when denied; undefined when granted (the
   * request takes its point from the refilled entry).
   */
  const settle = (
    outcome: LeaseOutcome,
    keyId: string,
    limit: number,
  ): LeaseDecision | Promise<LeaseDecision> | undefined => {
    if (outcome.kind === 'failed') return options.insure(keyId, limit);
    if (outcome.kind === 'denied') return outcome.decision;
    return undefined;
  };

  const refill = async (keyId: string, limit: number): Promise<LeaseDecision> => {
    for (;;) {
      const now = clock();
      let lease = book.get(keyId);
      if (lease && now >= lease.deadline && !lease.pending) {
        book.delete(keyId);
        lease = undefined;
      }
      if (lease && lease.limit !== limit && !lease.pending) relimit(lease, limit);
      if (lease && lease.points > 0 && lease.limit === limit) return spend(lease, now);
      if (lease?.exhausted && !lease.pending) {
        lease.reported = 0;
        return { allowed: false, remaining: 0, msLeft: lease.endsBy - now };
      }
      if (lease?.pending) {
        lease.waiting += 1;
        let outcome: LeaseOutcome;
        try {
          outcome = await lease.pending;
        } finally {
          lease.waiting -= 1;
        }
        const settled = settle(outcome, keyId, limit);
        if (settled !== undefined) return settled;
        continue;
      }
      const fresh: Lease = lease ?? {
        keyId,
        limit,
        points: 0,
        deadline: 0,
        endsBy: 0,
        windowEndS: 0,
        sharedRemaining: limit,
        reported: limit,
        lastGranted: 0,
        lastUsed: 0,
        lastLeaseAt: 0,
        lastUseAt: now,
        firstBefore: 0,
        firstAt: now,
        othersRate: 0,
        leasedNet: 0,
        spent: 0,
        replicas: INITIAL_REPLICAS,
        rate: 0,
        maxNeed: 0,
        exhausted: false,
        pending: undefined,
        waiting: 0,
      };
      book.set(keyId, fresh);
      // This request and every one already waiting on this key get their point from the reply.
      const need = 1 + (lease?.waiting ?? 0);
      const sentAt = clock();
      const known = lease !== undefined && lease.lastLeaseAt > 0 && sentAt < lease.deadline;
      // Degraded: exact decisions for the waiting requests only, no block kept.
      const { asked, call } = options.degraded()
        ? { asked: need, call: { need, share: 1, tail: 0, exact: 0, known } }
        : planLease(lease, limit, need, now, known);
      fresh.maxNeed = Math.max(fresh.maxNeed, need);
      const pending = options.lease(keyId, limit, asked, call).then(
        (grant): LeaseOutcome => {
          if (!grant) {
            // Redis failed: nothing is held; what the entry knows of the window stays.
            if (fresh.lastLeaseAt === 0) book.delete(keyId);
            return FAILED;
          }
          const denial = applyGrant(fresh, grant, sentAt, clock());
          return denial ? { kind: 'denied', decision: denial } : GRANTED;
        },
        (error: unknown) => {
          book.delete(keyId);
          throw error;
        },
      );
      fresh.pending = pending;
      let outcome: LeaseOutcome;
      try {
        outcome = await pending;
      } finally {
        fresh.pending = undefined;
      }
      const settled = settle(outcome, keyId, limit);
      if (settled !== undefined) return settled;
    }
  };

  return {
    take(keyId, limit) {
      const lease = book.get(keyId);
      if (
        lease !== undefined &&
        lease.points > 0 &&
        lease.pending === undefined &&
        lease.limit === limit
      ) {
        const now = clock();
        if (now < lease.deadline) return spend(lease, now);
      }
      return refill(keyId, limit);
    },
    sweep() {
      const now = clock();
      for (const [keyId, lease] of book) {
        if (lease.pending) continue;
        if (now >= lease.deadline) {
          book.delete(keyId);
        } else if (lease.points > 0 && now - lease.lastUseAt >= IDLE_HAND_BACK_MS) {
          lease.sharedRemaining += giveBack(lease);
        }
      }
    },
    releaseAll() {
      const now = clock();
      for (const [keyId, lease] of book) {
        if (lease.points > 0 && now < lease.deadline) giveBack(lease);
        lease.points = 0; // an ended window's points go nowhere
        book.delete(keyId);
      }
    },
    held(keyId, limit) {
      const lease = book.get(keyId);
      return lease?.limit === limit ? lease.points : 0;
    },
    window(keyId) {
      const lease = book.get(keyId);
      const now = clock();
      if (!lease || lease.lastLeaseAt === 0 || now >= lease.deadline) return undefined;
      return { spent: lease.spent, msLeft: lease.endsBy - now };
    },
  };
}
