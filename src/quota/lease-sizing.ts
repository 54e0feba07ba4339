/**
 * How big a block one replica asks for, and how many replicas it believes share the key
 * (docs/rate-limits.md, "How replicas share a key's quota"). Pure functions of what the replica
 * has seen; the store applies the same share to the counter as it is *now* (lease-script.ts).
 */
import type { LeaseCall } from './quota-lease-types';

/** Guess of the replicas sharing a key until this replica has spent `MIN_BLOCK` points. */
export const INITIAL_REPLICAS = 3;
/** Most replicas a block is sized for. */
const MAX_SHARING = 63;
/**
 * Fewest replicas a block is sized for: an estimate near 1 (another replica's lease was still
 * in flight) would otherwise let one replica take the whole rest of the quota.
 */
const MIN_SHARING = 2;
/**
 * A block taken from `remaining` points is at most `remaining / (1 + (replicas - 1) ×
 * RATE_MARGIN)`: then this replica spends it before the other replicas have used up the rest
 * even if its demand runs `RATE_MARGIN` times slower than each of theirs, so no block is left
 * stranded when the quota ends.
 */
const RATE_MARGIN = 1.5;
/**
 * Below this many points per replica left, a key whose under-admission bound is one point per
 * replica (limits under 200 per replica) takes only what is waiting: a burst that ends exactly
 * at such a limit has no room for a block spent late.
 */
const EXACT_TAIL_PER_REPLICA = 12;
/** Seconds of local demand one block may cover. */
const HORIZON_S = 30;
/** Smallest block worth a round trip when the quota allows it. */
const MIN_BLOCK = 8;

/** What one replica knows of a key's demand in the current window. */
export interface DemandView {
  /** `limit - counter` at this replica's last lease. */
  sharedRemaining: number;
  /** Monotonic ms of this replica's last lease reply (0: none yet). */
  lastLeaseAt: number;
  /** Counter before this replica's first lease in the window, and when it was answered. */
  firstBefore: number;
  firstAt: number;
  /** Points per ms the other replicas leased since this replica's first lease. */
  othersRate: number;
  /** Points this replica leased in the window, less those handed back. */
  leasedNet: number;
  /** Points this replica spent in the window. */
  spent: number;
  /** Replicas sharing the key, as estimated at the last lease (see `estimateSharing`). */
  replicas: number;
  /** Local requests per second for this key (smoothed). */
  rate: number;
  /** Most requests that waited on one lease of this replica in the window. */
  maxNeed: number;
}

/**
 * Replicas a block is sized for. In a burst (a block's worth of requests queued on one lease)
 * the estimate follows block sizes more than demand, so it is not trusted below
 * `INITIAL_REPLICAS` there.
 */
const sharing = (view: DemandView | undefined): number => {
  if (!view) return INITIAL_REPLICAS;
  const floor = view.maxNeed >= MIN_BLOCK ? INITIAL_REPLICAS : MIN_SHARING;
  return Math.max(floor, view.replicas);
};

/** Divisor of the remaining quota for a block (see `RATE_MARGIN`). */
const shareOf = (replicas: number): number => 1 + (replicas - 1) * RATE_MARGIN;

/**
 * Speculative points a block may hold even at the very end: this replica's part of the
 * documented under-admission bound, max(1 % of the limit, one point per replica), less one.
 */
const tailOf = (limit: number, replicas: number): number =>
  Math.max(0, Math.floor(Math.max(Math.floor(limit / 100), replicas) / replicas) - 1);

/**
 * Points to ask for: the `need` requests waiting for this reply, plus up to this replica's
 * share of the remaining quota and about `HORIZON_S` of its own demand. The remaining quota is
 * the one this replica last saw less what the others probably leased since (at their rate so
 * far); the store caps the speculative part again on the *true* remaining, so a stale view can
 * never take a large block at the end of the quota (the guess only spares the store the extra
 * write of a capped grant).
 */
export function planLease(
  view: DemandView | undefined,
  limit: number,
  need: number,
  now: number,
  known: boolean,
): { asked: number; call: LeaseCall } {
  const remaining = view
    ? view.sharedRemaining - view.othersRate * (now - view.lastLeaseAt)
    : limit;
  const replicas = sharing(view);
  const tail = tailOf(limit, replicas);
  // The end of the quota is exact (only what is waiting) where the bound is one point per
  // replica, and for the last bursts' worth of points when requests queue up: the others may
  // hold queues as long as this replica's, which a speculative block would starve.
  const queued = Math.max(need, view?.maxNeed ?? 0);
  const burst = queued >= MIN_BLOCK ? queued : 0;
  const perReplica = tail === 0 ? Math.max(EXACT_TAIL_PER_REPLICA, burst) : burst;
  const exact = Math.ceil(perReplica * replicas);
  const call = { need, share: shareOf(replicas), tail, exact, known };
  if (remaining - need < exact) return { asked: need, call };
  const byQuota = Math.max(Math.floor(remaining / call.share), need + tail);
  // A block's worth of requests waiting at once is a burst: only the quota bounds the block.
  const byDemand =
    need >= MIN_BLOCK
      ? Number.POSITIVE_INFINITY
      : Math.max(MIN_BLOCK, Math.ceil((view?.rate ?? 0) * HORIZON_S));
  // Where the bound is one point per replica, a replica's speculative points stay within its
  // fair share of the window (limit / replicas): a replica whose leases came back sooner is
  // *ahead* of the others, whose queued requests Redis has not seen yet, and a share of the
  // remaining quota would strand points it never gets requests for.
  const fair =
    tail === 0
      ? need + Math.max(0, Math.floor(limit / replicas) - (view?.leasedNet ?? 0) - need)
      : Number.POSITIVE_INFINITY;
  return { asked: Math.max(1, need, Math.min(byQuota, byDemand, fair)), call };
}

/** Points per ms the other replicas leased since this replica's first lease in the window. */
export function othersRate(view: DemandView, before: number, now: number): number {
  return Math.max(0, before - view.firstBefore - view.leasedNet) / Math.max(1, now - view.firstAt);
}

/**
 * Replicas sharing the key: the key's demand over this replica's, counted since this replica's
 * first lease in the window as (points the others leased + points this replica spent) / points
 * this replica spent, `before` being the counter just before this lease. Others' leases include
 * points they have not spent yet, so the estimate errs high (smaller blocks, a few more
 * leases), never low, which would let one replica hold more than its share;
 * `INITIAL_REPLICAS` until a block's worth was spent, at least `MIN_SHARING`.
 */
export function estimateSharing(view: DemandView, before: number): number {
  const others = Math.max(0, before - view.firstBefore - view.leasedNet);
  const sample = 1 + others / Math.max(1, view.spent);
  const floor = view.spent < MIN_BLOCK ? INITIAL_REPLICAS : MIN_SHARING;
  // Others' fresh blocks against few points spent here make a noisy spike: at most double.
  return Math.min(MAX_SHARING, 2 * view.replicas, Math.max(floor, sample));
}
