/**
 * Per-key fixed-window limits on rate-limiter-flexible's memory store (embedded mode, and the
 * shape the Redis limiter of production mode shares). The window starts with a key's first
 * request; one limiter instance exists per distinct limit value.
 */
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateDecision, RateLimiter } from '../../domain/ports';

/** Converts a rate-limiter-flexible result into the port's decision. */
export function toDecision(
  res: RateLimiterRes,
  limit: number,
  allowed: boolean,
  nowMs: number,
): RateDecision {
  const msLeft = Math.max(0, res.msBeforeNext);
  return {
    allowed,
    limit,
    remaining: allowed ? Math.max(0, res.remainingPoints) : 0,
    resetAtS: Math.ceil((nowMs + msLeft) / 1000),
    retryAfterS: Math.max(1, Math.ceil(msLeft / 1000)),
  };
}

/**
 * Builds a `RateLimiter` from a factory of rate-limiter-flexible limiters, one per limit value.
 * Errors that are not a limiter verdict (a store failure) propagate.
 */
export function createFlexibleRateLimiter(
  makeLimiter: (limit: number) => RateLimiterAbstract,
  now: () => number = Date.now,
): RateLimiter {
  const byLimit = new Map<number, RateLimiterAbstract>();
  return {
    async consume(keyId, limit) {
      let limiter = byLimit.get(limit);
      if (!limiter) {
        limiter = makeLimiter(limit);
        byLimit.set(limit, limiter);
      }
      try {
        return toDecision(await limiter.consume(keyId, 1), limit, true, now());
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return toDecision(rejection, limit, false, now());
        throw rejection;
      }
    },
  };
}

/** In-memory limiter with windows of `windowS` seconds. */
export function createMemoryRateLimiter(windowS: number): RateLimiter {
  return createFlexibleRateLimiter(
    (limit) =>
      new RateLimiterMemory({ points: limit, duration: windowS, keyPrefix: `rl:${limit}` }),
  );
}
