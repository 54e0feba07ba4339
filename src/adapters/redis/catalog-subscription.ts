/**
 * A replica's subscription to the catalog events channel, and what it means for the snapshot:
 * events sent while the subscription is down are lost, so the snapshot is only trustworthy
 * again after Redis has confirmed the subscription AND a read of the whole index has begun
 * after that confirmation. The epoch moves on every loss and every confirmation; the catalog
 * notes the epoch when a resync begins and compares it here.
 */
import type { Logger } from '../../logger';
import type { RedisClient } from './client';
import { CATALOG_EVENTS_CHANNEL } from './keys';

/** Retry period of the resync that must follow a (re)subscription, until it succeeds. */
export const RECONNECT_RETRY_MS = 100;

export interface CatalogSubscriptionOptions {
  /** Pub/sub connection (`createRedisSubscriber`); may be shared with other subscribers. */
  readonly subscriber: RedisClient;
  readonly logger: Logger;
  readonly onMessage: (channel: string, message: string) => void;
  /** Redis confirmed the subscription (at start or after a reconnect): resync now. */
  readonly onConfirmed: () => void;
}

export interface CatalogSubscription {
  /** Subscribes; resolves whether Redis confirmed it within `timeoutMs` (it keeps trying). */
  start(timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
  /** The epoch a resync beginning now covers. */
  epoch(): number;
  /** Whether events flow and a resync that began at `syncedEpoch` covers what was lost. */
  covers(syncedEpoch: number): boolean;
  /** Whether events flow but no resync since the confirmation has succeeded yet. */
  awaitsResync(syncedEpoch: number): boolean;
}

export function createCatalogSubscription(
  options: CatalogSubscriptionOptions,
): CatalogSubscription {
  const { subscriber, logger, onMessage } = options;
  let running = false;
  let confirmed = false;
  let epoch = 0;

  const onConfirmed = () => {
    if (!running) return;
    confirmed = true;
    epoch += 1;
    options.onConfirmed();
  };
  const onLost = () => {
    if (!confirmed) return;
    confirmed = false;
    epoch += 1;
  };
  // ioredis renews the subscription itself after a reconnect; subscribing again (harmless)
  // is how we learn when Redis has confirmed it.
  const onReady = () => {
    subscriber.subscribe(CATALOG_EVENTS_CHANNEL).then(onConfirmed, () => undefined);
  };

  return {
    async start(timeoutMs) {
      running = true;
      subscriber.on('message', onMessage);
      subscriber.on('close', onLost);
      subscriber.on('ready', onReady);
      const subscription = subscriber.subscribe(CATALOG_EVENTS_CHANNEL).then(
        () => {
          onConfirmed();
          return true;
        },
        (err: Error) => {
          logger.warn({ err: err.message }, 'catalog subscription failed; resync continues');
          return false;
        },
      );
      let giveUp: NodeJS.Timeout | undefined;
      const result = await Promise.race([
        subscription,
        new Promise<boolean>((resolve) => (giveUp = setTimeout(() => resolve(false), timeoutMs))),
      ]);
      clearTimeout(giveUp);
      return result;
    },
    async stop() {
      running = false;
      subscriber.off('message', onMessage);
      subscriber.off('close', onLost);
      subscriber.off('ready', onReady);
      if (subscriber.status === 'ready') {
        await subscriber.unsubscribe(CATALOG_EVENTS_CHANNEL).catch(() => undefined);
      }
    },
    epoch: () => epoch,
    covers: (syncedEpoch) => confirmed && syncedEpoch === epoch && subscriber.status === 'ready',
    awaitsResync: (syncedEpoch) => confirmed && syncedEpoch !== epoch,
  };
}
