/**
 * A small circuit breaker for the object store. After `threshold` consecutive failures it
 * opens: requests fail at once (503 with `Retry-After`) instead of each waiting out a timeout
 * against a dead store, which keeps replicas responsive and does not hammer a store that is
 * recovering. While open, the breaker itself tries the store (`trial`, a cheap probe) every
 * `cooldownMs`, and closes as soon as one succeeds: no client request is ever the trial (none
 * waits on a dead store), and reads resume within one cool-down of the store's return instead
 * of half a cool-down plus a client's timeout on average.
 */

/** Permission for one request; the first verdict reported counts, later ones are ignored. */
export interface BreakerPermit {
  /** The store answered (including "no such object"): resets the failure count. */
  success(): void;
  /** The store failed (timeout, connection error, 5xx, inconsistent answer). */
  failure(): void;
  /** The request ended without a verdict (the client left first). */
  release(): void;
}

export interface CircuitBreaker {
  /** A permit to send one request, or `undefined` while the breaker is open (fail fast). */
  acquire(): BreakerPermit | undefined;
  /** True from opening until a trial succeeds; for metrics and health. */
  isOpen(): boolean;
  /** While open: milliseconds until the next trial starts (at least 1; a trial running: 1). */
  retryAfterMs(): number;
  /** Stops the trials (shutdown). */
  close(): void;
}

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. */
  readonly threshold: number;
  /** Time between two trials while open. */
  readonly cooldownMs: number;
  /** One cheap request to the store (bounded by the store's timeout); resolves when it answered. */
  readonly trial: () => Promise<void>;
  /** Called on every change between open and closed (logging). */
  readonly onChange?: (open: boolean) => void;
  readonly now?: () => number;
}

/** Creates a closed breaker. */
export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const now = options.now ?? Date.now;
  let failures = 0;
  let open = false;
  let nextTrialAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const setOpen = (value: boolean) => {
    if (open === value) return;
    open = value;
    options.onChange?.(value);
  };

  const scheduleTrial = () => {
    if (closed) return;
    nextTrialAt = now() + options.cooldownMs;
    timer = setTimeout(() => {
      timer = undefined;
      options.trial().then(
        () => {
          failures = 0;
          setOpen(false);
        },
        () => scheduleTrial(),
      );
    }, options.cooldownMs);
    timer.unref();
  };

  const trip = () => {
    if (open) return;
    setOpen(true);
    scheduleTrial();
  };

  const permit = (): BreakerPermit => {
    let settled = false;
    return {
      success() {
        if (settled) return;
        settled = true;
        failures = 0;
      },
      failure() {
        if (settled) return;
        settled = true;
        failures += 1;
        if (failures >= options.threshold) trip();
      },
      release() {
        settled = true;
      },
    };
  };

  return {
    acquire: () => (open ? undefined : permit()),
    isOpen: () => open,
    retryAfterMs: () => Math.max(1, nextTrialAt - now()),
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
