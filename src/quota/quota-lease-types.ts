/**
 * The leased quota's contract with the limiter around it (`rate-limiter.ts`): what a lease
 * call returns, what a decision says, and the calls the book makes (`quota-lease.ts`).
 */

/** What one lease call asks of the shared counter beyond its points: how many requests wait for
 * it now and how the store caps the speculative rest (the Redis store encodes it for its script,
 * `adapters/redis/lease-script.ts`). */
export interface LeaseCall {
  /** Requests waiting for this reply (at least 1). */
  readonly need: number;
  /** Divisor of the remaining quota for the speculative part (at least 1). */
  readonly share: number;
  /** Speculative points allowed whatever the remaining quota (0 for exact decisions). */
  readonly tail: number;
  /** Below this many points left (beyond `need`), no speculative points at all. */
  readonly exact: number;
  /** The caller knows the window's end: the script may skip reporting it. */
  readonly known: boolean;
}

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

/**
 * The port the lease book sits behind: the shared counter (`lease`, `handBack`), the in-memory
 * insurance (`insure`) and the store's health (`degraded`). The book itself holds no technology;
 * `adapters/redis/rate-limiter.ts` implements this over rate-limiter-flexible and Redis.
 */
export interface QuotaLeaseOptions {
  /**
   * Takes up to `points` from the key's shared counter (rate-limiter-flexible `consume`):
   * `call.need` of them for requests waiting now, the rest capped by the store at this
   * replica's share of what is left (`call.share`); `call.known` lets the store skip
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
