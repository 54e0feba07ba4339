/**
 * Reading the service's rate-limit headers. The service reports the quota through
 * `X-RateLimit-Limit/Remaining/Reset` (Reset in Unix seconds) and 429 adds `Retry-After`;
 * these pure functions turn them into a state callers can show and a wait they can honour.
 */

/** What the client last learnt about its quota; times are epoch milliseconds. */
export interface RateLimitState {
  /** Requests allowed in the current window. */
  readonly limit: number;
  /** Requests left in the current window. */
  readonly remaining: number;
  /** When the current window ends (from `X-RateLimit-Reset`). */
  readonly resetAtMs: number;
  /**
   * Set after a 429: requests are held back until this time (from `Retry-After`, else
   * `X-RateLimit-Reset`). Absent while requests flow.
   */
  readonly blockedUntilMs?: number;
  /** When these values were read. */
  readonly observedAtMs: number;
}

/** The subset of `Headers` these functions read, so any fetch implementation fits. */
export interface HeaderReader {
  get(name: string): string | null;
}

function nonNegativeInteger(value: string | null): number | undefined {
  if (value === null || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

/** The quota in `headers`, or `undefined` when the response carries no rate-limit headers. */
export function readRateLimit(headers: HeaderReader, nowMs: number): RateLimitState | undefined {
  const limit = nonNegativeInteger(headers.get('X-RateLimit-Limit'));
  const remaining = nonNegativeInteger(headers.get('X-RateLimit-Remaining'));
  const resetS = nonNegativeInteger(headers.get('X-RateLimit-Reset'));
  if (limit === undefined || remaining === undefined || resetS === undefined) return undefined;
  return { limit, remaining, resetAtMs: resetS * 1000, observedAtMs: nowMs };
}

/**
 * How long to wait after a 429 before trying again: `Retry-After` (seconds or HTTP-date) when
 * present, since it is relative and immune to clock skew; else until `X-RateLimit-Reset`; else
 * `fallbackMs`. Never less than 100 ms, so a bad header cannot cause a tight retry loop.
 */
export function retryDelayMs(headers: HeaderReader, nowMs: number, fallbackMs: number): number {
  const retryAfter = headers.get('Retry-After');
  let delay: number | undefined;
  if (retryAfter !== null) {
    const seconds = nonNegativeInteger(retryAfter);
    if (seconds !== undefined) delay = seconds * 1000;
    else if (!Number.isNaN(Date.parse(retryAfter))) delay = Date.parse(retryAfter) - nowMs;
  }
  if (delay === undefined) {
    const resetS = nonNegativeInteger(headers.get('X-RateLimit-Reset'));
    if (resetS !== undefined) delay = resetS * 1000 - nowMs;
  }
  return Math.max(100, delay ?? fallbackMs);
}
