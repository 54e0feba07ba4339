/**
 * Metric decorators and scrape-time gauges, kept out of the adapters and the HTTP layer so
 * both stay free of prom-client.
 */
import {
  ARCHIVE_OBJECT_REASONS,
  ArchiveObjectError,
  ClientGoneError,
  STORE_BUSY_REASONS,
  StoreBusyError,
} from './domain/archive-errors';
import type { ArchiveStore, CatalogReader } from './domain/ports';
import { parseTimestamp } from './domain/timestamps';
import { HttpError } from './errors';
import type { ApiMetrics } from './metrics';

/**
 * Counts a failed store call where it belongs: store errors only for what the store did (not
 * found, unavailable); a per-object problem or a refused read in its own counter; a client that
 * left in none (the request metrics record it as 499).
 */
function countFailure(metrics: ApiMetrics, operation: string, err: unknown): void {
  if (err instanceof ClientGoneError) return;
  if (err instanceof ArchiveObjectError) metrics.storeObjectErrors.inc({ reason: err.reason });
  else if (err instanceof StoreBusyError) metrics.storeReadsRefused.inc({ reason: err.reason });
  else {
    const kind = err instanceof HttpError && err.status === 404 ? 'not_found' : 'unavailable';
    metrics.storeErrors.inc({ operation, kind });
  }
}

/** Wraps a store so each range open is timed to its first byte and each failure counted. */
export function instrumentArchiveStore(store: ArchiveStore, metrics: ApiMetrics): ArchiveStore {
  for (const reason of ARCHIVE_OBJECT_REASONS) metrics.storeObjectErrors.inc({ reason }, 0);
  for (const reason of STORE_BUSY_REASONS) metrics.storeReadsRefused.inc({ reason }, 0);
  const timed = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    const end = metrics.storeDuration.startTimer({ operation });
    try {
      return await run();
    } catch (err) {
      countFailure(metrics, operation, err);
      throw err;
    } finally {
      end();
    }
  };
  return {
    openRange: (meta, window, signal, owner) =>
      timed('get_range', () => store.openRange(meta, window, signal, owner)),
    probe: () => timed('probe', () => store.probe()),
    close: () => store.close(),
  };
}

/** Inputs of the gauges refreshed at every scrape. */
export interface ScrapeState {
  readonly catalog: CatalogReader;
  readonly storeReachable: () => boolean;
  readonly healthy: () => boolean;
  readonly limiterDegraded?: () => boolean;
  readonly breakerOpen?: () => boolean;
  readonly cacheBytes?: () => number;
  readonly now?: () => number;
}

/** Sets the scrape-time gauges of an API replica from live state. */
export function refreshApiGauges(metrics: ApiMetrics, state: ScrapeState): void {
  const now = state.now ?? Date.now;
  const snapshot = state.catalog.current();
  metrics.catalogTimestamps.set(snapshot.timestamps.length);
  const latest = snapshot.timestamps[0];
  const latestMs = latest === undefined ? undefined : parseTimestamp(latest);
  // No data at all reads as infinitely stale, which is what the staleness alert should see.
  metrics.latestAge.set(
    latestMs === undefined ? Number.POSITIVE_INFINITY : (now() - latestMs) / 1000,
  );
  metrics.catalogInSync.set(state.catalog.inSync() ? 1 : 0);
  const syncAge = state.catalog.syncAgeS();
  metrics.catalogResyncAge.set(Number.isFinite(syncAge) ? syncAge : -1);
  metrics.storeReachable.set(state.storeReachable() ? 1 : 0);
  metrics.healthy.set(state.healthy() ? 1 : 0);
  metrics.rateLimiterDegraded.set(state.limiterDegraded?.() ? 1 : 0);
  metrics.storeBreakerOpen.set(state.breakerOpen?.() ? 1 : 0);
  metrics.cacheBytes.set(state.cacheBytes?.() ?? 0);
}
