/**
 * Per-key fixed-window limits shared by every replica, leased in blocks (see
 * `quota-lease.ts` and docs/rate-limits.md): rate-limiter-flexible's `RateLimiterRedis` stays
 * the shared limiter, one instance per distinct limit over one counter per key
 * (`radar:rl:<keyId>`, the limit goes to the script as the library's `points`), with
 * - `consume(key, n)` taking a block of n points in one atomic call, capped at the limit by
 *   its `customIncrTtlLuaScript` option (`lease-script.ts`), so no block is granted past it;
 * - `reward(key, n)` handing unspent points back (idle blocks, shutdown), applied only to the
 *   window they were leased in;
 * - `inMemoryBlockOnConsumed` keeping an exhausted key away from Redis until its window ends
 *   (per instance, so per limit: a raised limit asks Redis again).
 * The window (the counter's TTL) starts with the key's first request.
 *
 * Degraded-mode policy (docs/rate-limits.md): when Redis is down, not ready, or slower than the
 * command timeout, each request takes one point from an in-memory insurance limiter with the
 * same limit and window — fail open, limits enforced per replica (a key can get up to
 * `replicas × limit` per window) — and `degraded()` reports it until a Redis call succeeds
 * again. Refusing all traffic because the limiter's store is down would turn a Redis outage
 * into a full API outage; tiles are read-only and cheap to serve. Blocks already leased stay
 * valid until their window ends; no new block is kept while degraded. The insurance continues
 * the window this replica knows from its leases (same end, less the points it spent there), so
 * a replica admits at most `limit` per window whether Redis answers, fails or flaps. What it
 * admits in memory is carried to the key's counter when Redis answers again (`outage-ledger.ts`);
 * lease calls carry an expiry, so a call Redis runs after the replica gave up on it (a stall)
 * takes nothing.
 */
import { RateLimiterRes, type RateLimiterRedis } from 'rate-limiter-flexible';
import type { RateLimiter } from '../../domain/ports';
import type { Logger } from '../../logger';
import { createWindowCounter, toDecision } from '../memory/rate-limiter';
import type { RedisClient } from './client';
import { RATE_LIMIT_KEY_PREFIX } from './keys';
import { LEASE_SCRIPT, leaseDuration, type LeaseGuard } from './lease-script';
import { createLeasingLimiter, type LeaseReply } from './leasing-limiter';
import { createOutageLedger, type Carry } from '../../quota/outage-ledger';
import { createQuotaLease } from '../../quota/quota-lease';
import type { LeaseCall, LeaseDecision, LeaseGrant } from '../../quota/quota-lease-types';

export interface RedisRateLimiterOptions {
  /** Command client (`createRedisClient`): no offline queue, bounded command timeout. */
  readonly client: RedisClient;
  /** Window length in seconds (`RADAR_RATE_WINDOW_S`). */
  readonly windowS: number;
  readonly logger: Logger;
  /**
   * The client's command timeout (ms): a lease call Redis runs later than this after it was
   * sent changes nothing. Default: the client's own `commandTimeout` (none: no expiry).
   */
  readonly commandTimeoutMs?: number;
  /** Called on every change of the degraded state (for a metric or an alert). */
  readonly onDegraded?: (degraded: boolean) => void;
  /** Wall clock (ms) for `X-RateLimit-Reset` and lease expiries. */
  readonly now?: () => number;
  /** How often idle blocks are handed back and owed points carried (ms); 0: by hand (tests). */
  readonly sweepMs?: number;
}

/** A shared limiter that can say whether it is currently counting in memory only. */
export interface RedisRateLimiter extends RateLimiter {
  /** True while the last Redis call failed (insurance limiter in use); false after a success. */
  degraded(): boolean;
  /** Hands back idle blocks and carries owed points now (the timer does this every `sweepMs`). */
  sweep(): void;
  /** Points this replica holds for a key (tests, accuracy figures). */
  held(keyId: string, limit: number): number;
  /** Stops the timer, hands every held point back and carries what is owed. */
  close(): Promise<void>;
}

/** The command timeout configured on an ioredis client or cluster, if any. */
function clientCommandTimeout(client: RedisClient): number {
  const options = client.options as {
    commandTimeout?: number;
    redisOptions?: { commandTimeout?: number };
  };
  return options.commandTimeout ?? options.redisOptions?.commandTimeout ?? 0;
}

/** Creates the shared limiter; limiters per limit value are created on first use. */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RedisRateLimiter {
  const { client, windowS, logger } = options;
  const now = options.now ?? Date.now;
  const clock = () => performance.now();
  const timeoutMs = options.commandTimeoutMs ?? clientCommandTimeout(client);
  /** Window end (Redis time, Unix s) and points granted, as the lease script replied. */
  const replies = new WeakMap<RateLimiterRes, LeaseReply>();
  let degraded = false;
  /** Monotonic ms of the last failed Redis call: expiries are checked on every call after it. */
  let failedAt = Number.NEGATIVE_INFINITY;
  /** How far Redis's clock runs ahead of this replica's (ms), learnt from late replies. */
  let skewMs = 0;
  const pending = new Set<Promise<unknown>>();
  const insurance = createWindowCounter(windowS, 'insurance');
  const ledger = createOutageLedger(clock);

  const observe = (failed: boolean) => {
    if (failed) failedAt = clock();
    if (failed === degraded) return;
    degraded = failed;
    if (degraded) {
      logger.warn('rate limits degraded: Redis unavailable, counting per replica in memory');
    } else {
      logger.info('rate limits shared again: Redis available');
    }
    options.onDegraded?.(degraded);
  };

  const hooks = {
    onReply: (res: RateLimiterRes, reply: LeaseReply) => replies.set(res, reply),
    onLate: (redisNowMs: number) => {
      // Answered in time, yet late by Redis's clock: Redis runs ahead of this replica.
      const measured = Math.max(0, redisNowMs - now());
      if (Math.abs(measured - skewMs) > 100) {
        logger.warn(
          { skewMs: measured },
          'Redis clock ahead of this replica; lease expiries follow it',
        );
      }
      skewMs = measured;
    },
  };

  const byLimit = new Map<number, RateLimiterRedis>();
  const limiterFor = (limit: number): RateLimiterRedis => {
    let limiter = byLimit.get(limit);
    if (!limiter) {
      limiter = createLeasingLimiter(
        {
          storeClient: client,
          points: limit,
          duration: windowS,
          keyPrefix: RATE_LIMIT_KEY_PREFIX,
          customIncrTtlLuaScript: LEASE_SCRIPT,
          // Fail over at once when the connection is down instead of waiting for a timeout.
          rejectIfRedisNotReady: true,
          // An exhausted key answers from memory until its window ends: no Redis call.
          inMemoryBlockOnConsumed: limit + 1,
        },
        hooks,
      );
      byLimit.set(limit, limiter);
    }
    return limiter;
  };

  const guardFor = (carry: Carry | undefined): LeaseGuard => ({
    expiresAtMs: timeoutMs > 0 ? now() + skewMs + timeoutMs : 0,
    always: carry !== undefined || degraded || clock() - failedAt < windowS * 1000,
    carry: carry?.points ?? 0,
    carryTtlMs: carry?.ttlMs ?? 0,
  });

  /** Reads a library result (resolved or rejected) back as a grant. */
  const toGrant = (res: RateLimiterRes, limit: number, carried: number): LeaseGrant => {
    const reply = replies.get(res);
    // No reply: an in-memory block (an exhausted key), no store was asked.
    const granted = reply?.granted ?? 0;
    const used = reply ? Math.min(limit, res.consumedPoints) : limit;
    if (res.msBeforeNext < 0) {
      // The script skipped the window (the caller knows it): the common, cheapest reply.
      return { granted, used, msLeft: undefined, windowEndS: undefined, carried };
    }
    const msLeft = res.msBeforeNext;
    return {
      granted,
      used,
      msLeft,
      // 0: the script left the window out (the caller knows it).
      windowEndS: reply ? reply.windowEndS || undefined : Math.ceil((now() + msLeft) / 1000),
      carried,
    };
  };

  const lease = async (
    keyId: string,
    limit: number,
    asked: number,
    call: LeaseCall,
  ): Promise<LeaseGrant | undefined> => {
    const carry = ledger.claim(keyId);
    let res: RateLimiterRes;
    try {
      res = await limiterFor(limit).consume(keyId, asked, {
        customDuration: leaseDuration(windowS, call),
        leaseGuard: guardFor(carry),
      });
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        if (carry) ledger.settle(carry, false);
        observe(true);
        return undefined;
      }
      res = rejection;
    }
    const ran = replies.has(res);
    if (carry) ledger.settle(carry, ran);
    if (ran) observe(false);
    return toGrant(res, limit, ran ? (carry?.points ?? 0) : 0);
  };

  /**
   * One point from the insurance limiter. Its window is the one this replica knows from its
   * leases (same end) or, if none, a new one; its budget is the limit less what this replica
   * spent there from leased blocks, so the replica's admissions in the window stay within the
   * limit however Redis answers, fails or flaps.
   */
  const insure = async (keyId: string, limit: number): Promise<LeaseDecision> => {
    const known = quota.window(keyId);
    const budget = Math.max(0, limit - (known?.spent ?? 0));
    const take = await insurance.take(keyId, budget, known?.msLeft ?? windowS * 1000);
    if (take.allowed) ledger.admit(keyId, limit, take.msLeft);
    return { allowed: take.allowed, remaining: budget - take.taken, msLeft: take.msLeft };
  };

  const track = (call: Promise<unknown>) => {
    const tracked = call.finally(() => pending.delete(tracked));
    pending.add(tracked);
  };

  /** Carries every owed point to Redis (keys that get no lease soon still owe theirs). */
  const flush = () => {
    if (isDegraded()) return;
    for (const carry of ledger.claimAll()) {
      const options = { leaseGuard: guardFor(carry) };
      track(
        limiterFor(carry.limit)
          .penalty(carry.keyId, 0, options)
          .then(
            () => {
              ledger.settle(carry, true);
              observe(false);
            },
            (error: unknown) => {
              ledger.settle(carry, false);
              logger.debug({ err: error }, 'rate limit carry failed; the points stay owed');
            },
          ),
      );
    }
  };

  const handBack = (keyId: string, limit: number, points: number, windowEndS: number) => {
    if (windowS < 3) return; // the script tells windows apart to ±1 s
    track(
      limiterFor(limit)
        .reward(keyId, points, { customDuration: windowEndS })
        .catch((error: unknown) => {
          logger.debug({ err: error }, 'rate limit hand-back failed; the points stay leased');
        }),
    );
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

  const quota = createQuotaLease({ lease, insure, handBack, degraded: isDegraded, clock });

  const decide = (d: LeaseDecision, limit: number) =>
    toDecision(d.allowed, limit, d.remaining, d.msLeft, now());

  const sweep = () => {
    quota.sweep();
    ledger.sweep();
    flush();
  };
  const sweepMs = options.sweepMs ?? 1000;
  const timer = sweepMs > 0 ? setInterval(sweep, sweepMs) : undefined;
  timer?.unref();

  return {
    consume(keyId, limit) {
      const d = quota.take(keyId, limit);
      return d instanceof Promise ? d.then((v) => decide(v, limit)) : decide(d, limit);
    },
    degraded: isDegraded,
    sweep,
    held: (keyId, limit) => quota.held(keyId, limit),
    async close() {
      if (timer) clearInterval(timer);
      client.off('ready', onReady);
      quota.releaseAll();
      flush();
      await Promise.allSettled([...pending]);
    },
  };
}
