/**
 * The archive store's reachability as every replica sees it, kept in Redis with hysteresis, so
 * replicas agree on `healthy` and it does not flap during an outage. Each replica still probes
 * the store on its own clock, but its result goes into one shared record: the shared view turns
 * unreachable only after `failuresToDown` consecutive failed probes (from any replicas) and
 * reachable again only after `successesToUp` consecutive successes. A change is published, so
 * every replica switches within milliseconds of the others instead of at its own next probe.
 * The record expires when no replica reports for `ttlMs` (a fresh one starts reachable).
 *
 * Without an answer from Redis, and once the shared view is older than `ttlMs`, a replica falls
 * back to its own last probe (its catalog is then out of sync, so `healthy` is false anyway).
 */
import type { Logger } from '../../logger';
import type { RedisClient } from './client';
import { STORE_HEALTH_CHANNEL, STORE_HEALTH_KEY } from './keys';
import { defineScript } from './script';

/**
 * KEYS: record. ARGV: '1' probe succeeded / '0' failed, failures to down, successes to up,
 * TTL ms, channel. Returns the shared state after this result ('1' or '0').
 */
const REPORT_LUA = `
local state = redis.call('HGET', KEYS[1], 'state') or '1'
local fails = tonumber(redis.call('HGET', KEYS[1], 'fails') or '0')
local oks = tonumber(redis.call('HGET', KEYS[1], 'oks') or '0')
if ARGV[1] == '1' then oks = oks + 1; fails = 0 else fails = fails + 1; oks = 0 end
local next = state
if state == '1' and fails >= tonumber(ARGV[2]) then next = '0' end
if state == '0' and oks >= tonumber(ARGV[3]) then next = '1' end
redis.call('HSET', KEYS[1], 'state', next, 'fails', fails, 'oks', oks)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if next ~= state then redis.call('PUBLISH', ARGV[5], next) end
return next
`;

/** Consecutive failed probes, from any replicas, before the store counts as unreachable. */
export const FAILURES_TO_DOWN = 2;
/** Consecutive successful probes, from any replicas, before it counts as reachable again. */
export const SUCCESSES_TO_UP = 2;

export interface SharedStoreHealthOptions {
  /** Command client: the report script. */
  readonly client: RedisClient;
  /** Pub/sub connection (shared with the catalog and key store). */
  readonly subscriber: RedisClient;
  /** This replica's own last probe result: the fallback without Redis. */
  readonly local: () => boolean;
  /** Lifetime of the shared record and of a replica's last view of it (3 probe periods). */
  readonly ttlMs: number;
  readonly logger: Logger;
  readonly failuresToDown?: number;
  readonly successesToUp?: number;
  readonly now?: () => number;
}

export interface SharedStoreHealth {
  /** Records one probe result of this replica; never rejects. */
  report(ok: boolean): Promise<void>;
  /** The shared view, or this replica's own probe when the shared view is unknown or stale. */
  reachable(): boolean;
  /** Subscribes to changes. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createSharedStoreHealth(options: SharedStoreHealthOptions): SharedStoreHealth {
  const { client, subscriber, logger, ttlMs } = options;
  const now = options.now ?? Date.now;
  const script = defineScript(client, 'radarStoreHealthReport', 1, REPORT_LUA);
  let shared: boolean | undefined;
  let sharedAt = -Infinity;
  let failing = false;

  const learn = (state: unknown) => {
    const next = state === '1' || state === 1;
    if (shared !== undefined && next !== shared)
      logger.info({ reachable: next }, 'archive store reachability changed (shared view)');
    shared = next;
    sharedAt = now();
  };
  const onMessage = (channel: string, message: string) => {
    if (channel === STORE_HEALTH_CHANNEL) learn(message);
  };

  return {
    async report(ok) {
      try {
        learn(
          await script(
            [STORE_HEALTH_KEY],
            [
              ok ? '1' : '0',
              options.failuresToDown ?? FAILURES_TO_DOWN,
              options.successesToUp ?? SUCCESSES_TO_UP,
              ttlMs,
              STORE_HEALTH_CHANNEL,
            ],
          ),
        );
        if (failing) logger.info('shared store health reachable again');
        failing = false;
      } catch (err) {
        if (!failing)
          logger.warn(
            { err: (err as Error).message },
            "shared store health unavailable; this replica's own probe decides meanwhile",
          );
        failing = true;
      }
    },
    reachable: () => (shared !== undefined && now() - sharedAt <= ttlMs ? shared : options.local()),
    async start() {
      subscriber.on('message', onMessage);
      await subscriber
        .subscribe(STORE_HEALTH_CHANNEL)
        .catch((err: Error) =>
          logger.warn(
            { err: err.message },
            'store health subscription failed; probes still report',
          ),
        );
    },
    async stop() {
      subscriber.off('message', onMessage);
      if (subscriber.status === 'ready')
        await subscriber.unsubscribe(STORE_HEALTH_CHANNEL).catch(() => undefined);
    },
  };
}
