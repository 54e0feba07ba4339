/**
 * The production catalog of one replica: an in-memory snapshot of the Redis index, so every
 * request is answered from memory (O(1), and unaffected by a Redis outage), kept current by
 * the events channel (a publication reaches every replica within milliseconds) and by a full
 * resync every `resyncMs` (a missed event, a dropped subscription or a Redis restart heals by
 * itself). Writes go straight to the index (`redis-catalog-index.ts`).
 *
 * Outage policy: while Redis does not answer, the last good snapshot keeps serving and
 * `inSync()` turns false (so `healthy` does too). When Redis answers with an empty index
 * although this replica knows archives (Redis restarted without data, or flushed), that is
 * data loss rather than news: the last good snapshot keeps serving, out of sync, until the
 * ingest reconciliation has rebuilt the index from the bucket. (Retention removes timestamps
 * through prune events, never by emptying the index behind the replicas' backs.)
 */
import { createSnapshot, EMPTY_SNAPSHOT } from '../../domain/catalog-snapshot';
import type {
  ArchiveMeta,
  CatalogReader,
  CatalogSnapshot,
  CatalogWriter,
} from '../../domain/ports';
import { createSerialTrigger } from '../../shared/serial-trigger';
import type { Logger } from '../../logger';
import { waitForRedisReady, type RedisClient } from './client';
import { decodeCatalogEvent, type CatalogDropReason, type CatalogEvent } from './catalog-codec';
import { createRedisCatalogIndex, type DroppedEntry } from './catalog-index';
import { CATALOG_EVENTS_CHANNEL } from './keys';

export interface RedisCatalogOptions {
  /** Command client (`createRedisClient`): index reads and writes. */
  readonly client: RedisClient;
  /** Pub/sub connection (`createRedisSubscriber`); may be shared with other subscribers. */
  readonly subscriber: RedisClient;
  readonly logger: Logger;
  /** Full resync period (`RADAR_RESYNC_S` × 1000). */
  readonly resyncMs: number;
  /**
   * Longest time between two full reads of the index when its version does not move (default
   * 5 min). The scripts always move the version; an index edited by hand (redis-cli) does
   * not, and heals within this period. Amortised, the read of even 10,000 timestamps is then
   * a negligible fraction of a core.
   */
  readonly fullLoadMs?: number;
  /** Longest wait in `start()` for Redis before serving an empty snapshot. Default 5000. */
  readonly startTimeoutMs?: number;
  readonly now?: () => number;
  /**
   * Called once per index entry refused on the way in (junk member, future timestamp,
   * malformed metadata), for metrics; the entry is also logged once. It stays unlisted until
   * the next ingest pass repairs or removes it.
   */
  readonly onDropped?: (timestamp: string, reason: CatalogDropReason) => void;
}

/** A replica's catalog: reader for HTTP, writer for ingest, and its background lifecycle. */
export interface RedisCatalog extends CatalogReader, CatalogWriter {
  /**
   * Subscribes to the events channel, loads the index (waiting up to `startTimeoutMs` for
   * Redis) and starts the periodic resync. Never rejects: if Redis is down the replica starts
   * with an empty, out-of-sync catalog and fills it when Redis returns.
   */
  start(): Promise<void>;
  /** Stops the resync and the subscription; the clients stay open (their owner closes them). */
  stop(): Promise<void>;
  /** Resyncs now; resolves with whether the index was read. */
  resync(): Promise<boolean>;
}

function sameMeta(a: ArchiveMeta, b: ArchiveMeta | undefined): boolean {
  return (
    b !== undefined &&
    a.size === b.size &&
    a.etag === b.etag &&
    a.lastModified.getTime() === b.lastModified.getTime()
  );
}

function applyEvent(metas: Map<string, ArchiveMeta>, event: CatalogEvent): void {
  if (event.type === 'publish') metas.set(event.meta.timestamp, event.meta);
  else for (const ts of event.timestamps) metas.delete(ts);
}

/**
 * Creates the catalog; writes work at once (the ingest worker needs nothing else), the
 * snapshot fills after `start()`.
 */
export function createRedisCatalog(options: RedisCatalogOptions): RedisCatalog {
  const { client, subscriber, logger, resyncMs } = options;
  const now = options.now ?? Date.now;
  const index = createRedisCatalogIndex(client);
  const listeners = new Set<(snapshot: CatalogSnapshot) => void>();

  let metas = new Map<string, ArchiveMeta>();
  let snapshot = EMPTY_SNAPSHOT;
  let lastResyncOkAt = -Infinity;
  let lastResyncOk = false;
  let failing = false;
  /** The index was found empty while this replica still knew archives (see loadOnce). */
  let emptied = false;
  /** Events received while a resync reads the index, replayed on top of what it read. */
  let replay: CatalogEvent[] | undefined;
  /** Index version of the last full load that succeeded (see `CATALOG_VERSION_KEY`). */
  let loadedVersion: string | null = null;
  let lastFullLoadAt = now();
  const fullLoadMs = options.fullLoadMs ?? 300_000;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  /** Entries refused at the last read, so each is logged and counted once, not every resync. */
  let refused = new Map<string, CatalogDropReason>();

  const reportDropped = (dropped: readonly DroppedEntry[]) => {
    const next = new Map<string, CatalogDropReason>();
    for (const { timestamp, reason } of dropped) {
      next.set(timestamp, reason);
      if (refused.get(timestamp) === reason) continue;
      // The member is attacker- or bug-controlled: log a bounded, printable form of it.
      logger.warn(
        { member: JSON.stringify(timestamp.slice(0, 64)), reason },
        'catalog entry refused; not listed until ingest repairs it',
      );
      options.onDropped?.(timestamp, reason);
    }
    refused = next;
  };

  /** Publishes a new snapshot when the content changed; versions only move on change. */
  const commit = () => {
    const unchanged =
      metas.size === snapshot.timestamps.length &&
      [...metas.values()].every((m) => sameMeta(m, snapshot.get(m.timestamp)));
    if (unchanged) return;
    snapshot = createSnapshot(snapshot.version + 1, metas.values());
    for (const listener of listeners) {
      try {
        listener(snapshot);
      } catch (err) {
        logger.error({ err }, 'catalog listener failed');
      }
    }
  };

  const onEvent = (event: CatalogEvent) => {
    replay?.push(event);
    applyEvent(metas, event);
    commit();
  };

  const loadOnce = async () => {
    replay = [];
    try {
      // Read before the index: a change made during the load moves it past what is recorded.
      const version = await index.version();
      if (
        version !== null &&
        version === loadedVersion &&
        lastResyncOk &&
        now() - lastFullLoadAt < fullLoadMs
      ) {
        // Nothing changed since the last full load: in sync without reading the index.
        lastResyncOkAt = now();
        return;
      }
      lastFullLoadAt = now();
      const read = await index.read(now());
      reportDropped(read.dropped);
      const loaded = new Map(read.metas.map((m) => [m.timestamp, m] as const));
      for (const event of replay) applyEvent(loaded, event);
      if (loaded.size === 0 && metas.size > 0) {
        // An index that vanished without prune events is data loss (Redis restarted empty or
        // flushed), not "nothing is published": keep serving the last good snapshot, out of
        // sync, until ingest reconciliation rebuilds the index from the bucket.
        if (!emptied)
          logger.warn(
            { kept: metas.size },
            'catalog index is empty; serving the last good snapshot until it is rebuilt',
          );
        emptied = true;
        lastResyncOk = false;
        return;
      }
      if (emptied) logger.info({ timestamps: loaded.size }, 'catalog index rebuilt');
      emptied = false;
      metas = loaded;
      commit();
      loadedVersion = version;
      lastResyncOkAt = now();
      lastResyncOk = true;
      if (failing) logger.info({ timestamps: metas.size }, 'catalog resync succeeded again');
      failing = false;
    } catch (err) {
      lastResyncOk = false;
      if (!failing) {
        logger.warn(
          { err: (err as Error).message },
          'catalog resync failed; serving the last good snapshot',
        );
      }
      failing = true;
    } finally {
      replay = undefined;
    }
  };
  const resyncTrigger = createSerialTrigger(loadOnce, () => undefined);

  const onMessage = (channel: string, message: string) => {
    if (channel !== CATALOG_EVENTS_CHANNEL) return;
    const event = decodeCatalogEvent(message, now());
    if (event) return onEvent(event);
    logger.warn({ channel }, 'unreadable catalog event; resyncing');
    resyncTrigger.trigger();
  };
  // After a reconnect the subscription is renewed, but events sent meanwhile are lost.
  const onSubscriberReady = () => resyncTrigger.trigger();

  const resync = async () => {
    resyncTrigger.trigger();
    await resyncTrigger.idle();
    return lastResyncOk;
  };

  return {
    current: () => snapshot,
    inSync: () =>
      running && now() - lastResyncOkAt <= 2 * resyncMs && subscriber.status === 'ready',
    syncAgeS: () => (now() - lastResyncOkAt) / 1000,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async publish(meta) {
      const fresh = await index.publish(meta);
      // Read-your-writes on this replica; the event that follows changes nothing more.
      if (fresh && running) onEvent({ type: 'publish', meta });
      return fresh;
    },
    async prune(cutoffMs) {
      const removed = await index.prune(cutoffMs);
      if (removed.length > 0 && running) onEvent({ type: 'prune', timestamps: removed });
      return removed;
    },
    async unpublish(timestamp) {
      const removed = await index.unpublish(timestamp);
      if (removed && running) onEvent({ type: 'prune', timestamps: [timestamp] });
      return removed;
    },
    list: () => index.list(),
    entries: () => index.entries(),

    async start() {
      if (running) return;
      running = true;
      subscriber.on('message', onMessage);
      const startTimeoutMs = options.startTimeoutMs ?? 5000;
      // Subscribe before the first load, so no event falls between the two.
      const subscribed = subscriber.subscribe(CATALOG_EVENTS_CHANNEL).then(
        () => true,
        (err: Error) => {
          logger.warn({ err: err.message }, 'catalog subscription failed; resync continues');
          return false;
        },
      );
      let giveUp: NodeJS.Timeout | undefined;
      await Promise.race([
        subscribed,
        new Promise((resolve) => (giveUp = setTimeout(resolve, startTimeoutMs))),
      ]);
      clearTimeout(giveUp);
      await waitForRedisReady(client, startTimeoutMs).catch(() => undefined);
      await resync();
      if (!lastResyncOk)
        logger.warn('catalog starts empty: Redis did not answer; retrying every resync period');
      subscriber.on('ready', onSubscriberReady);
      timer = setInterval(() => resyncTrigger.trigger(), resyncMs);
      timer.unref();
    },

    async stop() {
      if (!running) return;
      running = false;
      clearInterval(timer);
      subscriber.off('message', onMessage);
      subscriber.off('ready', onSubscriberReady);
      await resyncTrigger.idle();
      if (subscriber.status === 'ready') {
        await subscriber.unsubscribe(CATALOG_EVENTS_CHANNEL).catch(() => undefined);
      }
    },

    resync,
  };
}
