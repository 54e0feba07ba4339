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

import type { LeaseCall } from './lease-script';
import {
  estimateSharing,
  INITIAL_REPLICAS,
  othersRate,
  planLease,
  type DemandView,
} from './lease-sizing';

/** What one lease call returned (Redis answered). */
export interface LeaseGrant {
  /** Points granted (0..asked). */
  readonly granted: number;
  /** The shared counter after the call (leased points included), at most the limit. */
  readonly used: number;
  /** Milliseconds left in the key's window, as Redis saw it; undefined when the caller said
   * it knew the window and Redis skipped telling it again. */
  readonly msLeft: number | undefined;
  /** The window's end in Redis time (Unix s), identifying it for a hand-back; as `msLeft`. */
  readonly windowEndS: number | undefined;
  /** Points admitted in memory during an outage that this call added to the counter first. */
  readonly carried: number;
}

export interface LeaseDecision {
  readonly allowed: boolean;
  readonly remaining: number;
  /** Milliseconds left in the window at decision time (never less than the true rest). */
  readonly msLeft: number;
}

/** What a replica knows of a key's current window in Redis. */
export interface KnownWindow {
  /** Points this replica spent in it from leased blocks. */
  readonly spent: number;
  /** Milliseconds until it ends (never less than the true rest). */
  readonly msLeft: number;
}

export interface QuotaLeaseOptions {
  /**
   * Takes up to `points` from the key's shared counter (rate-limiter-flexible `consume`):
   * `call.need` of them for requests waiting now, the rest capped by the store at this
   * replica's share of what is left (`call.replicas`); `call.known` lets the store skip
   * reporting the window again. Undefined when Redis failed (nothing was taken).
   */
  readonly lease: (
    keyId: string,
    limit: number,
    points: number,
    call: LeaseCall,
  ) => Promise<LeaseGrant | undefined>;
  /**
   * One point from the in-memory insurance limiter, for each request that sent or waited on a
   * lease whose Redis call failed: each spends its own point there, at once (asking Redis
   * again would queue every waiter behind another timeout).
   */
  readonly insure: (keyId: string, limit: number) => Promise<LeaseDecision>;
  /** Hands unspent points back to the window they came from (rate-limiter-flexible `reward`). */
  readonly handBack: (keyId: string, limit: number, points: number, windowEndS: number) => void;
  /** True while Redis is failing: blocks of 1, nothing kept locally. */
  readonly degraded: () => boolean;
  /** Monotonic milliseconds. */
  readonly clock?: () => number;
}

/** A block untouched this long goes back to the shared counter. */
export const IDLE_HAND_BACK_MS = 2000;

interface Lease extends DemandView {
  readonly keyId: string;
  /** The limit of the last request (a changed limit resets what depends on it). */
  limit: number;
  /** Unspent points held locally. */
  points: number;
  /** Monotonic ms after which held points are void (never later than Redis's window end). */
  deadline: number;
  /** Monotonic ms by which the window has ended (never earlier than Redis's window end). */
  endsBy: number;
  windowEndS: number;
  /** Last reported remaining (monotone within the window). */
  reported: number;
  lastGranted: number;
  lastUsed: number;
  lastUseAt: number;
  /** The counter reached the limit at this replica's last lease: refuse once the block is spent. */
  exhausted: boolean;
  pending: Promise<LeaseOutcome> | undefined;
  waiting: number;
}

/**
 * What a lease reply means for the requests that sent or waited on it: the grant's points are
 * in the lease (spend them); no point was left (every one is refused with the same decision);
 * or Redis failed (every one takes its own point from the insurance limiter).
 */
type LeaseOutcome =
  | { readonly kind: 'granted' }
  | { readonly kind: 'denied'; readonly decision: LeaseDecision }
  | { readonly kind: 'failed' };

const GRANTED: LeaseOutcome = { kind: 'granted' };
const FAILED: LeaseOutcome = { kind: 'failed' };

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

  /** Folds a grant into the lease; returns the denial when nothing was granted. */
  const apply = (
    lease: Lease,
    grant: LeaseGrant,
    sentAt: number,
    now: number,
  ): LeaseDecision | undefined => {
    // A reply without the window means Redis found the key in the window this lease knows (a
    // new key always reports it); if the call landed after that window ended, the deadline
    // has passed by the time the reply arrives and the points are never spent.
    const sameWindow =
      lease.lastLeaseAt > 0 &&
      (grant.windowEndS === undefined || Math.abs(grant.windowEndS - lease.windowEndS) <= 1);
    // The counter before this call (points it carried were admitted earlier, by this replica).
    const before = grant.used - grant.granted - grant.carried;
    if (sameWindow && grant.granted > 0) {
      lease.othersRate = othersRate(lease, before, now);
      lease.replicas = estimateSharing(lease, before);
      const elapsedS = Math.max(0.001, (now - lease.lastLeaseAt) / 1000);
      const rate = lease.lastGranted / elapsedS;
      lease.rate = lease.rate === 0 ? rate : (lease.rate + rate) / 2;
    } else if (!sameWindow) {
      lease.reported = lease.limit;
      lease.points = 0;
      lease.firstBefore = before;
      lease.firstAt = now;
      lease.othersRate = 0;
      lease.leasedNet = 0;
      lease.spent = 0;
      lease.replicas = INITIAL_REPLICAS;
      lease.exhausted = false;
      lease.maxNeed = 0;
    }
    lease.leasedNet += grant.granted + grant.carried;
    if (grant.windowEndS !== undefined && grant.msLeft !== undefined) {
      lease.windowEndS = grant.windowEndS;
      // Measured from before the call for spending (never past the end), from the reply for
      // X-RateLimit-Reset (never before it: a client retrying then finds the window ended).
      lease.deadline = sentAt + grant.msLeft;
      lease.endsBy = now + grant.msLeft;
    }
    lease.sharedRemaining = Math.max(0, lease.limit - grant.used);
    // Like the library's in-memory block after a refusal, without the refused call.
    lease.exhausted = grant.used >= lease.limit;
    lease.lastUsed = grant.used;
    lease.lastGranted = grant.granted;
    lease.lastLeaseAt = now;
    lease.lastUseAt = now;
    if (grant.granted === 0) {
      lease.reported = 0;
      return { allowed: false, remaining: 0, msLeft: lease.endsBy - now };
    }
    lease.points += grant.granted;
    return undefined;
  };

  /** A new limit for a key: the held block goes back, the next lease asks under the new one. */
  const relimit = (lease: Lease, limit: number) => {
    if (lease.points > 0) {
      options.handBack(lease.keyId, lease.limit, lease.points, lease.windowEndS);
      lease.lastUsed -= lease.points;
      lease.leasedNet -= lease.points;
      lease.points = 0;
    }
    lease.limit = limit;
    lease.sharedRemaining = Math.max(0, limit - lease.lastUsed);
    lease.reported = lease.sharedRemaining;
    lease.exhausted = false;
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
        if (outcome.kind === 'failed') return options.insure(keyId, limit);
        if (outcome.kind === 'denied') return outcome.decision;
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
          const denial = apply(fresh, grant, sentAt, clock());
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
      if (outcome.kind === 'failed') return options.insure(keyId, limit);
      if (outcome.kind === 'denied') return outcome.decision;
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
          options.handBack(lease.keyId, lease.limit, lease.points, lease.windowEndS);
          lease.sharedRemaining += lease.points;
          lease.lastUsed -= lease.points;
          lease.leasedNet -= lease.points;
          lease.points = 0;
        }
      }
    },
    releaseAll() {
      const now = clock();
      for (const [keyId, lease] of book) {
        if (lease.points > 0 && now < lease.deadline) {
          options.handBack(lease.keyId, lease.limit, lease.points, lease.windowEndS);
        }
        lease.points = 0;
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
