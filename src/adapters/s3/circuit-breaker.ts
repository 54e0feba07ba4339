/**
 * A small circuit breaker for the object store. After `threshold` consecutive failures it
 * opens: requests fail at once (503) instead of each waiting out a timeout against a dead
 * store, which keeps replicas responsive and does not hammer a store that is recovering.
 * After `cooldownMs` one trial request is let through; its outcome closes or re-opens it.
 */

/** Permission for one request; the first verdict reported counts, later ones are ignored. */
export interface BreakerPermit {
  /** The store answered (including "no such object"): closes the breaker. */
  success(): void;
  /** The store failed (timeout, connection error, 5xx, inconsistent answer). */
  failure(): void;
  /** The request ended without a verdict (the client left first); frees a trial slot. */
  release(): void;
}

export interface CircuitBreaker {
  /**
   * A permit to send one request, or `undefined` while the breaker is open (fail fast).
   * After the cool-down exactly one caller gets a trial permit until it reports.
   */
  acquire(): BreakerPermit | undefined;
  /** True from opening until a request succeeds again; for metrics and health. */
  isOpen(): boolean;
}

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. */
  readonly threshold: number;
  /** How long the breaker stays open before a trial request. */
  readonly cooldownMs: number;
  readonly now?: () => number;
}

/** Creates a closed breaker. */
export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const now = options.now ?? Date.now;
  let failures = 0;
  let openedAt: number | undefined;
  let trial: BreakerPermit | undefined;

  const open = () => {
    openedAt = now();
    trial = undefined;
  };

  const permit = (isTrial: boolean): BreakerPermit => {
    let settled = false;
    const self: BreakerPermit = {
      success() {
        if (settled) return;
        settled = true;
        failures = 0;
        openedAt = undefined;
        trial = undefined;
      },
      failure() {
        if (settled) return;
        settled = true;
        failures += 1;
        if ((isTrial && trial === self) || failures >= options.threshold) open();
      },
      release() {
        if (settled) return;
        settled = true;
        if (trial === self) trial = undefined;
      },
    };
    return self;
  };

  return {
    acquire() {
      if (openedAt === undefined) return permit(false);
      if (trial !== undefined || now() - openedAt < options.cooldownMs) return undefined;
      trial = permit(true);
      return trial;
    },
    isOpen: () => openedAt !== undefined,
  };
}
