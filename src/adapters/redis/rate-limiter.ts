/**
 * Per-key fixed-window limits shared by every replica: rate-limiter-flexible's
 * `RateLimiterRedis` on the ioredis command client, one limiter per distinct limit (the same
 * shape as the embedded memory limiter). While Redis answers, limits are exact across
 * replicas: every point is one atomic INCR on the key's counter, and the window (its TTL)
 * starts with the key's first request.
 *
 * Degraded-mode policy (DESIGN.md §2): when Redis is down, not ready, or slower than the
 * command timeout, the request is counted by an in-memory insurance limiter with the same
 * limit and window — fail open, limits enforced per replica (a key can get up to
 * `replicas × limit` per window) — and `degraded()` reports it until a Redis call succeeds
 * again. Refusing all traffic because the limiter's store is down would turn a Redis outage
 * into a full API outage; tiles are read-only and cheap to serve.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiter } from '../../domain/ports';
import type { Logger } from '../../logger';
import { createFlexibleRateLimiter } from '../memory/rate-limiter';
import type { RedisClient } from './client';
import { rateLimitKeyPrefix } from './keys';

export interface RedisRateLimiterOptions {
  /** Command client (`createRedisClient`): no offline queue, bounded command timeout. */
  readonly client: RedisClient;
  /** Window length in seconds (`RADAR_RATE_WINDOW_S`). */
  readonly windowS: number;
  readonly logger: Logger;
  /** Called on every change of the degraded state (for a metric or an alert). */
  readonly onDegraded?: (degraded: boolean) => void;
  readonly now?: () => number;
}

/** A shared limiter that can say whether it is currently counting in memory only. */
export interface RedisRateLimiter extends RateLimiter {
  /** True while the last Redis call failed (insurance limiter in use); false after a success. */
  degraded(): boolean;
}

/** Creates the shared limiter; limiters per limit value are created on first use. */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RedisRateLimiter {
  const { client, windowS, logger } = options;
  /** Results produced by an insurance limiter, i.e. while Redis failed. */
  const insured = new WeakSet<RateLimiterRes>();
  let degraded = false;

  const observe = (fromInsurance: boolean) => {
    if (fromInsurance === degraded) return;
    degraded = fromInsurance;
    if (degraded) {
      logger.warn('rate limits degraded: Redis unavailable, counting per replica in memory');
    } else {
      logger.info('rate limits shared again: Redis available');
    }
    options.onDegraded?.(degraded);
  };

  /** The in-memory fallback; marks what it decides so the caller can tell who answered. */
  class InsuranceLimiter extends RateLimiterMemory {
    override consume(
      key: string | number,
      points?: number,
      opts?: Record<string, unknown>,
    ): Promise<RateLimiterRes> {
      return super.consume(key, points, opts).then(
        (res) => {
          insured.add(res);
          return res;
        },
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) insured.add(rejection);
          throw rejection;
        },
      );
    }
  }

  /** The Redis limiter, reporting after each call whether Redis or the insurance answered. */
  class ObservedRedisLimiter extends RateLimiterRedis {
    override consume(
      key: string | number,
      points?: number,
      opts?: Record<string, unknown>,
    ): Promise<RateLimiterRes> {
      return super.consume(key, points, opts).then(
        (res) => {
          observe(insured.has(res));
          return res;
        },
        (rejection: unknown) => {
          observe(!(rejection instanceof RateLimiterRes) || insured.has(rejection));
          throw rejection;
        },
      );
    }
  }

  const limiter = createFlexibleRateLimiter((limit) => {
    const keyPrefix = rateLimitKeyPrefix(limit);
    return new ObservedRedisLimiter({
      storeClient: client,
      points: limit,
      duration: windowS,
      keyPrefix,
      // Fail over at once when the connection is down instead of waiting for a timeout.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new InsuranceLimiter({ points: limit, duration: windowS, keyPrefix }),
    });
  }, options.now);

  return {
    consume: (keyId, limit) => limiter.consume(keyId, limit),
    degraded: () => degraded,
  };
}
