/**
 * Key store for the scaled deployment (`REDIS_URL` set, no `RADAR_KEYS_FILE`): the registry
 * lives in Redis (`redis-key-registry.ts`) and each replica answers every lookup from an
 * in-memory copy, so authentication costs no Redis round trip. The copy is reloaded when the
 * key CLI announces a change on the events channel (a revocation reaches every replica within
 * milliseconds), after the subscription reconnects, and every `resyncMs` (a missed event heals).
 *
 * Outage policy: while Redis does not answer, or holds an invalid registry, the last good
 * registry stays in force. A registry that disappears (Redis restarted without persistence)
 * is treated as data loss, not as "revoke everything": the last good registry stays in force
 * and an error is logged until an operator restores it. An explicit empty registry saved by
 * the CLI does revoke everything.
 */
import { createKeyRegistry, type KeyRegistry } from '../../domain/key-registry';
import { type KeyRegistryData } from '../../domain/key-records';
import { KeyFileError } from '../../keys/key-file-format';
import type { KeyStore } from '../../domain/key-ports';
import { createSerialTrigger } from '../../shared/serial-trigger';
import type { Logger } from '../../logger';
import { waitForRedisReady, type RedisClient } from './client';
import { readRedisRegistryIfChanged } from './key-registry';
import { KEY_EVENTS_CHANNEL } from './keys';

export interface RedisKeyStoreOptions {
  /** Command client (`createRedisClient`). */
  readonly client: RedisClient;
  /** Pub/sub connection (`createRedisSubscriber`); may be shared with the catalog. */
  readonly subscriber: RedisClient;
  /** Limit of keys without their own (`RADAR_RATE_LIMIT`). */
  readonly defaultLimit: number;
  readonly logger: Logger;
  /** Period of the full reload (`RADAR_RESYNC_S` × 1000). */
  readonly resyncMs: number;
  /** Longest wait for Redis at creation. Default 5000. */
  readonly startTimeoutMs?: number;
}

const EMPTY: KeyRegistryData = { apps: [], keys: [] };

/**
 * Subscribes, loads the registry and starts the periodic reload. Rejects when Redis does not
 * answer within `startTimeoutMs` or holds an invalid registry: a replica that cannot know any
 * key would answer 401 to everyone, which is worse than not starting (as with a missing key
 * file). A registry that does not exist yet is empty (create keys with `npm run keys`).
 */
export async function createRedisKeyStore(options: RedisKeyStoreOptions): Promise<KeyStore> {
  const { client, subscriber, defaultLimit, logger } = options;
  const startTimeoutMs = options.startTimeoutMs ?? 5000;
  let registry: KeyRegistry = createKeyRegistry(EMPTY, defaultLimit);
  /** The stored text in force; undefined while none has been loaded from Redis. */
  let inForce: string | undefined;
  /** The kind of reload failure last logged (undefined: none since the last success). */
  let failure: string | undefined;

  const reload = async () => {
    const stored = await readRedisRegistryIfChanged(client, inForce);
    if (stored === 'unchanged') return;
    if (stored === undefined) {
      if (inForce !== undefined) {
        logger.error(
          'key registry missing from Redis (restarted without data?); keeping the last good keys',
        );
      }
      return;
    }
    registry = createKeyRegistry(stored.data, defaultLimit);
    inForce = stored.raw;
    logger.info(
      { keys: stored.data.keys.length, apps: stored.data.apps.length },
      'key registry loaded',
    );
  };
  const trigger = createSerialTrigger(
    async () => {
      try {
        await reload();
        if (failure !== undefined) logger.info('key registry reload succeeded again');
        failure = undefined;
      } catch (err) {
        const message = (err as Error).message;
        const invalid = err instanceof KeyFileError;
        // Each invalid registry once; an unreachable Redis once per outage.
        const kind = invalid ? message : 'unreachable';
        if (kind === failure) return;
        failure = kind;
        // An invalid registry is an operator's mistake to fix (the message names the field);
        // an unreachable Redis heals by itself.
        if (invalid)
          logger.error(
            { err: message },
            'key registry in Redis is invalid; keeping the last good keys',
          );
        else
          logger.warn({ err: message }, 'key registry reload failed; keeping the last good keys');
      }
    },
    () => undefined,
  );

  const onMessage = (channel: string) => {
    if (channel === KEY_EVENTS_CHANNEL) trigger.trigger();
  };
  const onSubscriberReady = () => trigger.trigger();
  subscriber.on('message', onMessage);
  const detach = () => {
    subscriber.off('message', onMessage);
    subscriber.off('ready', onSubscriberReady);
  };

  try {
    let giveUp: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      giveUp = setTimeout(
        () => reject(new Error(`redis did not answer within ${startTimeoutMs} ms`)),
        startTimeoutMs,
      );
    });
    timedOut.catch(() => undefined); // settles after the race may be over
    try {
      // Subscribe before the first read, so no change falls between the two.
      await Promise.race([subscriber.subscribe(KEY_EVENTS_CHANNEL), timedOut]);
      await waitForRedisReady(client, startTimeoutMs);
      await reload();
    } finally {
      clearTimeout(giveUp);
    }
  } catch (err) {
    detach();
    throw new Error(`cannot load the key registry from Redis: ${(err as Error).message}`);
  }
  if (inForce === undefined)
    logger.warn('no key registry in Redis yet; every request gets 401 until keys are created');

  subscriber.on('ready', onSubscriberReady);
  const timer = setInterval(() => trigger.trigger(), options.resyncMs);
  timer.unref();

  return {
    authenticate(apiKey, appId) {
      return registry.decide(apiKey, appId);
    },
    async close() {
      clearInterval(timer);
      detach();
      await trigger.idle();
      if (subscriber.status === 'ready')
        await subscriber.unsubscribe(KEY_EVENTS_CHANNEL).catch(() => undefined);
    },
  };
}
