/**
 * rate-limiter-flexible's `RateLimiterRedis` running the lease script (`lease-script.ts`), with
 * two additions through the store hooks every `RateLimiterStoreAbstract` implements (present in
 * the library's stores, absent from its typings):
 * - `_getRateLimiterRes` also records each reply's window end and grant (`onReply`), which the
 *   library's result type has no field for;
 * - `_upsert` appends a lease's guard (`LeaseGuard`: expiry, carried points) to the script's
 *   arguments when the call's options carry one (`leaseGuard`), and turns the script's answer
 *   to a call that ran after its expiry into a failure (`LateLeaseError`), so the library
 *   rejects it like any other store failure. Calls without a guard (the library's own, the
 *   hand-backs) run unchanged.
 */
import { RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from './client';
import { guardArguments, LATE_REPLY, type LeaseGuard } from './lease-script';

/** Redis ran a lease call after its expiry: it changed nothing. */
export class LateLeaseError extends Error {
  constructor(readonly redisNowMs: number) {
    super('rate-limit lease reached Redis after its expiry; it changed nothing');
    this.name = 'LateLeaseError';
  }
}

/** Options of a lease call (`consume`/`penalty`): the library's, plus the guard. */
export interface LeaseCallOptions {
  readonly customDuration?: number;
  readonly leaseGuard?: LeaseGuard;
}

/** What the lease script says beyond the library's result. */
export interface LeaseReply {
  /** The window's end in Redis time (Unix s); 0 when the script left it out. */
  readonly windowEndS: number;
  readonly granted: number;
}

export interface LeasingLimiterHooks {
  /** Every reply of the lease script (leases, carries, hand-backs). */
  readonly onReply: (res: RateLimiterRes, reply: LeaseReply) => void;
  /** A call Redis ran after its expiry whose answer still came back: Redis time (ms) then. */
  readonly onLate: (redisNowMs: number) => void;
}

type Options = ConstructorParameters<typeof RateLimiterRedis>[0] & { storeClient: RedisClient };

interface StoreHooks {
  _getRateLimiterRes(rlKey: string, changed: number, result: unknown): RateLimiterRes;
  _upsert(
    rlKey: string,
    points: number,
    msDuration: number,
    forceExpire?: boolean,
    options?: LeaseCallOptions,
  ): Promise<unknown>;
}

/** The script's command, as the library defines it on the client (`rlflxIncr`). */
type ScriptCommand = { rlflxIncr(args: string[]): Promise<unknown> };

/** A `RateLimiterRedis` whose lease calls carry their guard; see the module comment. */
export function createLeasingLimiter(opts: Options, hooks: LeasingLimiterHooks): RateLimiterRedis {
  const limiter = new RateLimiterRedis(opts);
  const store = limiter as unknown as StoreHooks;
  const client = opts.storeClient;

  const toRes = store._getRateLimiterRes.bind(limiter);
  store._getRateLimiterRes = (rlKey, changed, result) => {
    const res = toRes(rlKey, changed, result);
    if (Array.isArray(result) && typeof result[3] === 'number') {
      hooks.onReply(res, { windowEndS: Number(result[2]), granted: result[3] });
    }
    return res;
  };

  const upsert = store._upsert.bind(limiter);
  store._upsert = (rlKey, points, msDuration, forceExpire = false, options = {}) => {
    const guard = options.leaseGuard;
    if (!guard || forceExpire) return upsert(rlKey, points, msDuration, forceExpire, options);
    // The library's own check (`rejectIfRedisNotReady`): fail over at once while disconnected.
    if (client.status !== 'ready')
      return Promise.reject(new Error('Redis connection is not ready'));
    const args = [
      rlKey,
      String(points),
      String(Math.floor(msDuration / 1000)),
      String(limiter.points),
      String(limiter.duration),
      ...guardArguments(guard),
    ];
    return (client as unknown as ScriptCommand).rlflxIncr(args).then((reply) => {
      if (Array.isArray(reply) && Number(reply[0]) === LATE_REPLY) {
        const redisNowMs = Number(reply[1]);
        hooks.onLate(redisNowMs);
        throw new LateLeaseError(redisNowMs);
      }
      return reply;
    });
  };
  return limiter;
}
