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
import { AUTH_FAILURE_REASONS } from './http/middleware/authenticate';
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

/** Store operations and error kinds of `radar_object_store_errors_total` (closed lists). */
export const STORE_OPERATIONS = ['get_range', 'probe'] as const;
export const STORE_ERROR_KINDS = ['not_found', 'unavailable'] as const;

/**
 * Labelled counters with a known vocabulary start at 0 for every value, so dashboards and
 * `rate()` see a series before the first event: auth failures by reason, and limiter
 * decisions for the default tier (other tiers appear with their first request).
 */
export function primeApiMetrics(metrics: ApiMetrics, options: { defaultLimit: number }): void {
  for (const reason of AUTH_FAILURE_REASONS) metrics.authFailures.inc({ reason }, 0);
  for (const decision of ['allowed', 'limited'])
    metrics.rateLimitDecisions.inc({ decision, tier: String(options.defaultLimit) }, 0);
}

/** Wraps a store so each range open is timed to its first byte and each failure counted. */
export function instrumentArchiveStore(store: ArchiveStore, metrics: ApiMetrics): ArchiveStore {
  for (const operation of STORE_OPERATIONS)
    for (const kind of STORE_ERROR_KINDS) metrics.storeErrors.inc({ operation, kind }, 0);
  for (const reason of ARCHIVE_OBJECT_REASONS) metrics.storeObjectErrors.inc({ reason }, 0);
  for (const reason of STORE_BUSY_REASONS) metrics.storeReadsRefused.inc({ reason }, 0);
  const timed = async <T>(
    operation: (typeof STORE_OPERATIONS)[number],
    run: () => Promise<T>,
  ): Promise<T> => {
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
