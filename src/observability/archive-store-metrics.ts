/**
 * Metric decorators on ports (the archive store), each declaring the metrics it feeds, kept out
 * of the adapters so they stay free of prom-client. The store's scrape-time gauges (breaker,
 * reachability) are in `replica-gauges.ts`.
 */
import {
  ARCHIVE_OBJECT_REASONS,
  ArchiveNotFoundError,
  ArchiveObjectError,
  ClientGoneError,
  STORE_BUSY_REASONS,
  StoreBusyError,
} from '../domain/archive-errors';
import type { ArchiveStore } from '../domain/ports';
import { Counter, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS, zeroed } from './registry';

/**
 * Counts a failed store call where it belongs: store errors only for what the store did (not
 * found, unavailable); a per-object problem or a refused read in its own counter; a client that
 * left in none (the request metrics record it as 499).
 */
function countFailure(metrics: StoreMetrics, operation: string, err: unknown): void {
  if (err instanceof ClientGoneError) return;
  if (err instanceof ArchiveObjectError) metrics.objectErrors.inc({ reason: err.reason });
  else if (err instanceof StoreBusyError) metrics.readsRefused.inc({ reason: err.reason });
  else {
    const kind = err instanceof ArchiveNotFoundError ? 'not_found' : 'unavailable';
    metrics.errors.inc({ operation, kind });
  }
}

/** Store operations and error kinds of `radar_object_store_errors_total` (closed lists). */
export const STORE_OPERATIONS = ['get_range', 'probe'] as const;
export const STORE_ERROR_KINDS = ['not_found', 'unavailable'] as const;

/**
 * The store metrics, declared in the decorator that feeds them; each labelled series starts
 * at 0 (every operation × kind, every object and busy reason).
 */
function createStoreMetrics(registry: Registry) {
  const errors = new Counter({
    name: 'radar_object_store_errors_total',
    help: 'Archive store failures, by operation and kind (not_found, unavailable).',
    labelNames: ['operation', 'kind'] as const,
    registers: [registry],
  });
  for (const operation of STORE_OPERATIONS)
    for (const kind of STORE_ERROR_KINDS) errors.inc({ operation, kind }, 0);
  // prom-client declarations repeat a shape: each metric is its own name, help and labels.
  return {
    duration: new Histogram({
      name: 'radar_object_store_request_duration_seconds',
      help: 'Archive store requests until the first byte (or failure), by operation.',
      labelNames: ['operation'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    errors,
    objectErrors: zeroed(
      new Counter({
        name: 'radar_object_store_object_errors_total',
        help: 'Archive reads refused because the stored object is not the published version or cannot be read, by reason (etag, size, range, status, forbidden). Per object: never counted as store errors.',
        labelNames: ['reason'] as const,
        registers: [registry],
      }),
      ARCHIVE_OBJECT_REASONS,
    ),
    readsRefused: zeroed(
      new Counter({
        name: 'radar_object_store_reads_refused_total',
        help: 'Archive reads refused (or given up as busy) without counting against the store, by reason (key, client: the caller holds its share of open store reads; socket-wait: no pooled socket came free in time; store-busy: no first byte in time while the store kept streaming to other reads).',
        labelNames: ['reason'] as const,
        registers: [registry],
      }),
      STORE_BUSY_REASONS,
    ),
  };
}

type StoreMetrics = ReturnType<typeof createStoreMetrics>;

/**
 * Wraps a store so each range open is timed to its first byte and each failure counted, on
 * metrics it registers on `registry` (adding a store metric touches this file).
 */
export function instrumentArchiveStore(store: ArchiveStore, registry: Registry): ArchiveStore {
  const metrics = createStoreMetrics(registry);
  const timed = async <T>(
    operation: (typeof STORE_OPERATIONS)[number],
    run: () => Promise<T>,
  ): Promise<T> => {
    const end = metrics.duration.startTimer({ operation });
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
