/**
 * One key's entry in the replica's book of leased blocks (`quota-lease.ts`) and how a lease
 * reply changes it: the grant's points, what it says of the window (its end, as measured from
 * before the call for spending and from the reply for `X-RateLimit-Reset`), and the sharing
 * estimates the next block is sized on (`lease-sizing.ts`).
 */
import type { LeaseDecision, LeaseGrant } from './quota-lease-types';
import { estimateSharing, INITIAL_REPLICAS, othersRate, type DemandView } from './lease-sizing';

/** What a replica holds and knows for one key (its book entry). */
export interface Lease extends DemandView {
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
export type LeaseOutcome =
  | { readonly kind: 'granted' }
  | { readonly kind: 'denied'; readonly decision: LeaseDecision }
  | { readonly kind: 'failed' };

export const GRANTED: LeaseOutcome = { kind: 'granted' };
export const FAILED: LeaseOutcome = { kind: 'failed' };

/** Folds a grant into the lease; returns the denial when nothing was granted. */
export function applyGrant(
  lease: Lease,
  grant: LeaseGrant,
  sentAt: number,
  now: number,
): LeaseDecision | undefined {
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
}
