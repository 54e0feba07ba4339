/**
 * Per-key fixed-window limits in memory, on rate-limiter-flexible's memory store: the limiter
 * of embedded mode, and the insurance limiter the Redis limiter of production mode falls back
 * on. The window starts with a key's first request.
 *
 * One counter per key, whatever its limit: a rate-limiter-flexible limiter has a fixed
 * `points`, so the counting limiter has none that matters (`Number.MAX_SAFE_INTEGER`) and each
 * request is decided against the limit it comes with. A key whose limit changes mid-window
 * keeps its count: the new limit applies to what was already spent (spent 3, new limit 2:
 * refused until the window ends). A refused request takes no point, so raising a limit
 * mid-window admits exactly the difference.
 */
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { RateDecision, RateLimiter } from '../../domain/ports';

/** One request's outcome in a {@link WindowCounter}. */
export interface WindowTake {
  readonly allowed: boolean;
  /** Points taken in the key's window, this request's included when allowed. */
  readonly taken: number;
  /** Milliseconds until the key's window ends. */
  readonly msLeft: number;
}

/** Per-key fixed windows, each request decided against a budget of its own. */
export interface WindowCounter {
  /**
   * Takes one point for `keyId` unless `budget` points were already taken in its window (a
   * refused request takes none). A window this call opens lasts `windowMs` (default: the
   * counter's window).
   */
  take(keyId: string, budget: number, windowMs?: number): Promise<WindowTake>;
}

/**
 * A refused request's point is given back only while its window has at least this long to
 * run: a give-back that reached the store after the window ended would open the next window
 * at -1 (one request too many). A refusal this close to the end keeps its point, which can
 * only refuse more until the window ends.
 */
const GIVE_BACK_MARGIN_MS = 1000;

/** A {@link WindowCounter} with windows of `windowS` seconds in this process's memory. */
export function createWindowCounter(windowS: number, keyPrefix = 'rl'): WindowCounter {
  const counter = new RateLimiterMemory({
    points: Number.MAX_SAFE_INTEGER,
    duration: windowS,
    keyPrefix,
  });
  return {
    async take(keyId, budget, windowMs) {
      const opts =
        windowMs === undefined ? {} : { customDuration: Math.max(0.001, windowMs / 1000) };
      const res = await counter.consume(keyId, 1, opts);
      if (res.consumedPoints <= budget) {
        return { allowed: true, taken: res.consumedPoints, msLeft: res.msBeforeNext };
      }
      if (res.msBeforeNext > GIVE_BACK_MARGIN_MS) await counter.reward(keyId, 1);
      return { allowed: false, taken: res.consumedPoints - 1, msLeft: res.msBeforeNext };
    },
  };
}

/** The port's decision for a request taken against `limit`, the window ending in `msLeft`. */
export function toDecision(
  allowed: boolean,
  limit: number,
  remaining: number,
  msLeft: number,
  nowMs: number,
): RateDecision {
  const left = Math.max(0, msLeft);
  return {
    allowed,
    limit,
    remaining: allowed ? Math.max(0, remaining) : 0,
    // Ceiling: a client that retries at Reset (in whole seconds) finds the window ended.
    resetAtS: Math.ceil((nowMs + left) / 1000),
    retryAfterS: Math.max(1, Math.ceil(left / 1000)),
  };
}

/** In-memory limiter with windows of `windowS` seconds (embedded mode). */
export function createMemoryRateLimiter(
  windowS: number,
  now: () => number = Date.now,
): RateLimiter {
  const counter = createWindowCounter(windowS);
  return {
    async consume(keyId, limit) {
      const take = await counter.take(keyId, limit);
      return toDecision(take.allowed, limit, limit - take.taken, take.msLeft, now());
    },
  };
}
