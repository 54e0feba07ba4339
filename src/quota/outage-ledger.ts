/**
 * What a replica admitted in memory (the insurance limiter) while Redis failed, owed to the
 * key's counter in Redis until a call carries it there: otherwise a window that spans an
 * outage would admit the insured requests and then the whole limit again once Redis is back.
 *
 * Per key, the points admitted in the current insurance window and not yet carried. A carry is
 * claimed for one call and settled when the call ends: applied (Redis ran it) or not (failed,
 * or refused as late by the lease script, which then changed nothing). Claimed points are not
 * claimed twice while their call is in flight, so a lease and a flush never carry the same
 * points. Points whose insurance window has ended are dropped: their window is over in Redis
 * as well (the insurance window ends with the Redis window the replica knew, or started during
 * the outage).
 */

/** Points one call carries to a key's counter. */
export interface Carry {
  readonly keyId: string;
  /** The key's limit at its last insured admission (the script caps the counter there). */
  readonly limit: number;
  readonly points: number;
  /** What is left of the insurance window (ms): the TTL of a counter the carry creates. */
  readonly ttlMs: number;
}

export interface OutageLedger {
  /** One request admitted in memory for `keyId`, in an insurance window ending in `msLeft`. */
  admit(keyId: string, limit: number, msLeft: number): void;
  /** The points owed for `keyId` and not in flight, claimed for one call; none: undefined. */
  claim(keyId: string): Carry | undefined;
  /** A claim for every key that owes points (the flush after an outage). */
  claimAll(): Carry[];
  /** Ends a claim: `applied` when Redis ran the call, so the points are no longer owed. */
  settle(carry: Carry, applied: boolean): void;
  /** Points owed for `keyId` (tests, metrics). */
  owed(keyId: string): number;
  /** Forgets keys whose insurance window has ended. */
  sweep(): void;
}

interface Entry {
  limit: number;
  owed: number;
  inFlight: number;
  /** Monotonic ms when the insurance window ends. */
  readonly endsAt: number;
}

/** `clock`: monotonic milliseconds. */
export function createOutageLedger(clock: () => number): OutageLedger {
  const book = new Map<string, Entry>();
  const claims = new WeakMap<Carry, Entry>();

  const live = (keyId: string, now: number): Entry | undefined => {
    const entry = book.get(keyId);
    if (entry && now >= entry.endsAt) {
      book.delete(keyId);
      return undefined;
    }
    return entry;
  };

  const claimOf = (keyId: string, entry: Entry, now: number): Carry | undefined => {
    const points = entry.owed - entry.inFlight;
    if (points <= 0) return undefined;
    entry.inFlight += points;
    const carry: Carry = { keyId, limit: entry.limit, points, ttlMs: entry.endsAt - now };
    claims.set(carry, entry);
    return carry;
  };

  return {
    admit(keyId, limit, msLeft) {
      const now = clock();
      let entry = live(keyId, now);
      if (!entry) {
        entry = { limit, owed: 0, inFlight: 0, endsAt: now + Math.max(1, msLeft) };
        book.set(keyId, entry);
      }
      entry.limit = limit;
      entry.owed += 1;
    },
    claim(keyId) {
      if (book.size === 0) return undefined;
      const now = clock();
      const entry = live(keyId, now);
      return entry ? claimOf(keyId, entry, now) : undefined;
    },
    claimAll() {
      const now = clock();
      const carries: Carry[] = [];
      for (const keyId of [...book.keys()]) {
        const entry = live(keyId, now);
        const carry = entry && claimOf(keyId, entry, now);
        if (carry) carries.push(carry);
      }
      return carries;
    },
    settle(carry, applied) {
      const entry = claims.get(carry);
      claims.delete(carry);
      if (!entry) return;
      entry.inFlight = Math.max(0, entry.inFlight - carry.points);
      if (applied) entry.owed = Math.max(0, entry.owed - carry.points);
      if (entry.owed === 0 && entry.inFlight === 0 && book.get(carry.keyId) === entry) {
        book.delete(carry.keyId);
      }
    },
    owed(keyId) {
      return live(keyId, clock())?.owed ?? 0;
    },
    sweep() {
      const now = clock();
      for (const keyId of [...book.keys()]) live(keyId, now);
    },
  };
}
