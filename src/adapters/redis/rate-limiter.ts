/**
 * Per-key fixed-window limits shared by every replica, leased in blocks (see
 * `quota-lease.ts` and docs/rate-limits.md): rate-limiter-flexible's `RateLimiterRedis` stays
 * the shared limiter, one per distinct limit, with
 * - `consume(key, n)` taking a block of n points in one atomic call, capped at the limit by
 *   its `customIncrTtlLuaScript` option (`lease-script.ts`), so no block is granted past it;
 * - `reward(key, n)` handing unspent points back (idle blocks, shutdown), applied only to the
 *   window they were leased in;
 * - `inMemoryBlockOnConsumed` keeping an exhausted key away from Redis until its window ends;
 * - its insurance limiter for the degraded mode below.
 * The window (the counter's TTL) starts with the key's first request.
 *
 * Degraded-mode policy (DESIGN.md §2): when Redis is down, not ready, or slower than the
 * command timeout, the request is counted by an in-memory insurance limiter with the same
 * limit and window — fail open, limits enforced per replica (a key can get up to
 * `replicas × limit` per window) — and `degraded()` reports it until a Redis call succeeds
 * again. Refusing all traffic because the limiter's store is down would turn a Redis outage
 * into a full API outage; tiles are read-only and cheap to serve. Blocks already leased stay
 * valid until their window ends; no new block is kept while degraded.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateDecision, RateLimiter } from '../../domain/ports';
import type { Logger } from '../../logger';
import type { RedisClient } from './client';
import { rateLimitKeyPrefix } from './keys';
import { LEASE_SCRIPT, leaseDuration, type LeaseCall } from './lease-script';
import { createQuotaLease, type LeaseGrant, type LeaseDecision } from './quota-lease';

export interface RedisRateLimiterOptions {
  /** Command client (`createRedisClient`): no offline queue, bounded command timeout. */
  readonly client: RedisClient;
  /** Window length in seconds (`RADAR_RATE_WINDOW_S`). */
  readonly windowS: number;
  readonly logger: Logger;
  /** Called on every change of the degraded state (for a metric or an alert). */
  readonly onDegraded?: (degraded: boolean) => void;
  /** Wall clock (ms) for `X-RateLimit-Reset`. */
  readonly now?: () => number;
  /** How often idle blocks are handed back (ms); 0 disables the timer (tests sweep by hand). */
  readonly sweepMs?: number;
}

/** A shared limiter that can say whether it is currently counting in memory only. */
export interface RedisRateLimiter extends RateLimiter {
  /** True while the last Redis call failed (insurance limiter in use); false after a success. */
  degraded(): boolean;
  /** Hands back idle blocks now (the timer does this every `sweepMs`). */
  sweep(): void;
  /** Points this replica holds for a key (tests, accuracy figures). */
  held(keyId: string, limit: number): number;
  /** Stops the timer and hands every held point back. */
  close(): Promise<void>;
}

interface LimiterPair {
  readonly shared: RateLimiterRedis;
  readonly insurance: RateLimiterMemory;
  /** Same counter, no insurance: a hand-back that fails must not touch the memory limiter. */
  readonly rewards: RateLimiterRedis;
}

/** Creates the shared limiter; limiters per limit value are created on first use. */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RedisRateLimiter {
  const { client, windowS, logger } = options;
  const now = options.now ?? Date.now;
  /** Results produced by an insurance limiter, i.e. while Redis failed. */
  const insured = new WeakSet<RateLimiterRes>();
  /** Window end (Redis time, Unix s) and points granted, as the lease script replied. */
  const replies = new WeakMap<RateLimiterRes, { windowEndS: number; granted: number }>();
  let degraded = false;
  const pending = new Set<Promise<unknown>>();

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
      // The lease's `customDuration` is a signal to the Redis script, not a window length.
      void opts;
      return super.consume(key, points).then(
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

  /**
   * The Redis limiter with the lease script; records each result's window end and grant through
   * the library's result hook `_getRateLimiterRes` (present in every store, absent from its typings).
   */
  class LeasingRedisLimiter extends RateLimiterRedis {
    constructor(opts: ConstructorParameters<typeof RateLimiterRedis>[0]) {
      super(opts);
      const hooks = this as unknown as {
        _getRateLimiterRes(rlKey: string, changed: number, result: unknown): RateLimiterRes;
      };
      const toRes = hooks._getRateLimiterRes.bind(this);
      hooks._getRateLimiterRes = (rlKey, changed, result) => {
        const res = toRes(rlKey, changed, result);
        if (Array.isArray(result) && typeof result[3] === 'number') {
          replies.set(res, { windowEndS: Number(result[2]), granted: result[3] });
        }
        return res;
      };
    }
  }

  const byLimit = new Map<number, LimiterPair>();
  const limiterFor = (limit: number): LimiterPair => {
    let pair = byLimit.get(limit);
    if (!pair) {
      const keyPrefix = rateLimitKeyPrefix(limit);
      const common = {
        storeClient: client,
        points: limit,
        duration: windowS,
        keyPrefix,
        customIncrTtlLuaScript: LEASE_SCRIPT,
        // Fail over at once when the connection is down instead of waiting for a timeout.
        rejectIfRedisNotReady: true,
      };
      const insurance = new InsuranceLimiter({ points: limit, duration: windowS, keyPrefix });
      pair = {
        shared: new LeasingRedisLimiter({
          ...common,
          insuranceLimiter: insurance,
          // An exhausted key answers from memory until its window ends: no Redis call.
          inMemoryBlockOnConsumed: limit + 1,
        }),
        insurance,
        rewards: new LeasingRedisLimiter(common),
      };
      byLimit.set(limit, pair);
    }
    return pair;
  };

  /** Reads a library result (resolved or rejected) back as a grant of `asked` points. */
  const toGrant = (res: RateLimiterRes, asked: number, limit: number): LeaseGrant => {
    const fromInsurance = insured.has(res);
    // A rejection with nothing consumed is an in-memory block (an exhausted key): no store
    // was asked, so it says nothing about Redis.
    const blocked = res.consumedPoints === 0;
    if (!blocked) observe(fromInsurance);
    const reply = replies.get(res);
    let granted = 0;
    let used = limit;
    if (reply) {
      // The script's counter plus the waiting requests it could not serve (see lease-script).
      granted = reply.granted;
      used = Math.min(limit, res.consumedPoints);
    } else if (!blocked) {
      // The insurance limiter counted all `asked`: what fits under the limit is granted.
      granted = Math.max(0, Math.min(asked, asked - Math.max(0, res.consumedPoints - limit)));
      used = res.consumedPoints - (asked - granted);
    }
    if (res.msBeforeNext < 0) {
      // The script skipped the window (the caller knows it): the common, cheapest reply.
      return { granted, used, msLeft: undefined, windowEndS: undefined, insured: false };
    }
    const msLeft = res.msBeforeNext;
    return {
      granted,
      used,
      msLeft,
      // 0: the script left the window out (the caller knows it).
      windowEndS: reply ? reply.windowEndS || undefined : Math.ceil((now() + msLeft) / 1000),
      insured: fromInsurance,
    };
  };

  const lease = async (
    keyId: string,
    limit: number,
    asked: number,
    call: LeaseCall,
  ): Promise<LeaseGrant> => {
    const pair = limiterFor(limit);
    let grant: LeaseGrant;
    try {
      const res = await pair.shared.consume(keyId, asked, {
        customDuration: leaseDuration(windowS, call),
      });
      grant = toGrant(res, asked, limit);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        observe(true);
        throw rejection;
      }
      grant = toGrant(rejection, asked, limit);
    }
    if (grant.insured && grant.granted > 1) {
      // Degraded: one point per request; the rest of the block goes back to the insurance.
      await pair.insurance.reward(keyId, grant.granted - 1);
      return { ...grant, granted: 1, used: grant.used - (grant.granted - 1) };
    }
    return grant;
  };

  /** One point from the insurance limiter alone (a request that waited on a failed lease). */
  const insure = async (keyId: string, limit: number): Promise<LeaseDecision> => {
    try {
      const res = await limiterFor(limit).insurance.consume(keyId, 1);
      const remaining = Math.max(0, limit - res.consumedPoints);
      return { allowed: true, remaining, msLeft: res.msBeforeNext };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return { allowed: false, remaining: 0, msLeft: rejection.msBeforeNext };
    }
  };

  const handBack = (keyId: string, limit: number, points: number, windowEndS: number) => {
    if (windowS < 3) return; // the script tells windows apart to ±1 s
    const call = limiterFor(limit)
      .rewards.reward(keyId, points, { customDuration: windowEndS })
      .catch((error: unknown) => {
        logger.debug({ err: error }, 'rate limit hand-back failed; the points stay leased');
      })
      .finally(() => pending.delete(call));
    pending.add(call);
  };

  /**
   * Degraded while the last Redis call failed or the connection is not ready: held blocks
   * keep being spent meanwhile (their points are reserved in Redis), so a replica with a
   * block may not call Redis for seconds, and the connection state is what tells first.
   * A reconnect ends it (the next call confirms or fails again).
   */
  const isDegraded = () => degraded || client.status !== 'ready';
  const onReady = () => observe(false);
  client.on('ready', onReady);

  const quota = createQuotaLease({ lease, insure, handBack, degraded: isDegraded });

  const toDecision = (d: LeaseDecision, limit: number): RateDecision => {
    const msLeft = Math.max(0, d.msLeft);
    return {
      allowed: d.allowed,
      limit,
      remaining: d.allowed ? d.remaining : 0,
      resetAtS: Math.ceil((now() + msLeft) / 1000),
      retryAfterS: Math.max(1, Math.ceil(msLeft / 1000)),
    };
  };

  const sweepMs = options.sweepMs ?? 1000;
  const timer = sweepMs > 0 ? setInterval(() => quota.sweep(), sweepMs) : undefined;
  timer?.unref();

  return {
    consume(keyId, limit) {
      const d = quota.take(keyId, limit);
      return d instanceof Promise ? d.then((v) => toDecision(v, limit)) : toDecision(d, limit);
    },
    degraded: isDegraded,
    sweep: () => quota.sweep(),
    held: (keyId, limit) => quota.held(keyId, limit),
    async close() {
      if (timer) clearInterval(timer);
      client.off('ready', onReady);
      quota.releaseAll();
      await Promise.allSettled([...pending]);
    },
  };
}
