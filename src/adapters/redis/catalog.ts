/**
 * The production catalog of one replica: an in-memory snapshot of the Redis index, so every
 * request is answered from memory (O(1), and unaffected by a Redis outage), kept current by
 * the events channel (a publication reaches every replica within milliseconds) and by a full
 * resync every `resyncMs` (a missed event, a dropped subscription or a Redis restart heals by
 * itself). Writes go straight to the index (`redis-catalog-index.ts`).
 *
 * Each time Redis confirms the subscription the whole index is read again, retried every
 * `RECONNECT_RETRY_MS` until it succeeds, out of sync until then (catalog-subscription.ts).
 * Meanwhile, and in the milliseconds an event takes, `find` asks the index about a timestamp
 * the snapshot lacks (catalog-lookup.ts), so a frame another replica lists is served here too.
 *
 * Outage policy: while Redis does not answer, the last good snapshot keeps serving and
 * `inSync()` turns false (so `healthy` does too). An index found empty, or lost and partly
 * rebuilt (its completion mark gone), is data loss rather than news: the replica serves the
 * union of it and the last good snapshot, out of sync, until ingest has rebuilt it.
 * (Retention removes timestamps through prune events, never behind the replicas' backs.)
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
import {
  applyEvent,
  decodeCatalogEvent,
  sameMeta,
  type CatalogDropReason,
  type CatalogEvent,
} from './catalog-codec';
import { createRedisCatalogIndex } from './catalog-index';
import { createCatalogLookup } from './catalog-lookup';
import { createRefusalReporter } from './catalog-refusals';
import { createCatalogSubscription, RECONNECT_RETRY_MS } from './catalog-subscription';
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
   * 5 min): an index edited by hand (redis-cli) does not move it, and heals within this.
   */
  readonly fullLoadMs?: number;
  /** Longest wait in `start()` for Redis before serving an empty snapshot. Default 5000. */
  readonly startTimeoutMs?: number;
  readonly now?: () => number;
  /**
   * Called once per index entry refused on the way in (catalog-refusals.ts), for metrics; it
   * stays unlisted until the next ingest pass repairs or removes it.
   */
  readonly onDropped?: (timestamp: string, reason: CatalogDropReason) => void;
  /** Longest wait of one `find` lookup (the command timeout, `RADAR_REDIS_TIMEOUT_MS`). */
  readonly lookupTimeoutMs?: number;
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

/** Creates the catalog; writes work at once, the snapshot fills after `start()`. */
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
  /** The index was found lost while this replica still knew archives (see loadOnce). */
  let emptied = false;
  /** Whether the index's completion mark was ever seen (`CATALOG_RECONCILED_KEY`). */
  let sawReconciled = false;
  /** Events received while a resync reads the index, replayed on top of what it read. */
  let replay: CatalogEvent[] | undefined;
  /** Index version of the last full load that succeeded (see `CATALOG_VERSION_KEY`). */
  let loadedVersion: string | null = null;
  let lastFullLoadAt = now();
  const fullLoadMs = options.fullLoadMs ?? 300_000;
  let timer: NodeJS.Timeout | undefined, retryTimer: NodeJS.Timeout | undefined;
  let running = false;
  /** The subscription epoch when the last successful resync began (catalog-subscription.ts). */
  let syncedEpoch = -1;
  const reportDropped = createRefusalReporter(logger, options.onDropped);
  const lookup = createCatalogLookup({ client, now, timeoutMs: options.lookupTimeoutMs });

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
    const epoch = subscription.epoch();
    clearTimeout(retryTimer);
    try {
      // Read before the index: a change made during the load moves it past what is recorded.
      const { version, reconciled } = await index.state();
      const lost = reconciled ? !(sawReconciled = true) : sawReconciled;
      if (
        version !== null &&
        !lost &&
        version === loadedVersion &&
        lastResyncOk &&
        now() - lastFullLoadAt < fullLoadMs
      ) {
        // Nothing changed since the last full load: in sync without reading the index.
        lastResyncOkAt = now();
        syncedEpoch = epoch;
        return;
      }
      lastFullLoadAt = now();
      const read = await index.read(now());
      reportDropped(read.dropped);
      const loaded = new Map(read.metas.map((m) => [m.timestamp, m] as const));
      for (const event of replay) applyEvent(loaded, event);
      if (metas.size > 0 && (lost || loaded.size === 0)) {
        // Lost (the completion mark, once seen, is gone) or empty: see the module comment.
        for (const [ts, meta] of loaded) metas.set(ts, meta);
        commit();
        if (!emptied)
          logger.warn(
            { kept: metas.size },
            'catalog index lost; serving the last good snapshot until ingest has rebuilt it',
          );
        emptied = true;
        lastResyncOk = false;
        syncedEpoch = epoch;
        return;
      }
      if (emptied) logger.info({ timestamps: loaded.size }, 'catalog index rebuilt');
      emptied = false;
      metas = loaded;
      commit();
      loadedVersion = version;
      lastResyncOkAt = now();
      lastResyncOk = true;
      syncedEpoch = epoch;
      if (failing) logger.info({ timestamps: metas.size }, 'catalog resync succeeded again');
      failing = false;
    } catch (err) {
      lastResyncOk = false;
      // The resync a (re)subscription asked for is retried soon, not at the next period.
      if (running && subscription.awaitsResync(syncedEpoch)) {
        retryTimer = setTimeout(() => resyncTrigger.trigger(), RECONNECT_RETRY_MS);
        retryTimer.unref();
      }
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
  const subscription = createCatalogSubscription({
    subscriber,
    logger,
    onMessage,
    onConfirmed() {
      // A full read, whatever the version says (a restarted Redis counts it from zero again).
      loadedVersion = null;
      resyncTrigger.trigger();
    },
  });
  // A resync that failed because the command connection was down is retried when it is back.
  const onClientReady = () => {
    if (running && !subscription.covers(syncedEpoch)) resyncTrigger.trigger();
  };

  return {
    current: () => snapshot,
    inSync: () =>
      running &&
      !emptied &&
      now() - lastResyncOkAt <= 2 * resyncMs &&
      subscription.covers(syncedEpoch),
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
    async find(timestamp) {
      const known = snapshot.get(timestamp);
      if (known) return known;
      const meta = await lookup(timestamp);
      if (meta && running && !metas.has(timestamp)) {
        // The snapshot lagged the index: take the entry now, and read the whole index again.
        onEvent({ type: 'publish', meta });
        loadedVersion = null;
        resyncTrigger.trigger();
      }
      return meta;
    },
    list: () => index.list(),
    reconciliation: index.reconciliation,
    entries: () => index.entries(),

    async start() {
      if (running) return;
      running = true;
      const startTimeoutMs = options.startTimeoutMs ?? 5000;
      client.on('ready', onClientReady);
      // Subscribe before the first load, so no event falls between the two.
      await subscription.start(startTimeoutMs);
      await waitForRedisReady(client, startTimeoutMs).catch(() => undefined);
      resyncTrigger.trigger();
      await resyncTrigger.idle();
      if (!lastResyncOk)
        logger.warn('catalog starts empty: Redis did not answer; retrying every resync period');
      timer = setInterval(() => resyncTrigger.trigger(), resyncMs);
      timer.unref();
    },

    async stop() {
      if (!running) return;
      running = false;
      clearInterval(timer);
      clearTimeout(retryTimer);
      client.off('ready', onClientReady);
      await resyncTrigger.idle();
      await subscription.stop();
    },

    async resync() {
      resyncTrigger.trigger();
      await resyncTrigger.idle();
      return lastResyncOk;
    },
  };
}
