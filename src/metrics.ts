/**
 * Prometheus metrics (prom-client), one registry per process, exposed on the admin listener.
 * Labels are bounded vocabularies only: route templates (unmatched paths share `unmatched`),
 * methods, statuses, reasons, operations. Never a timestamp, key, app or raw path.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CATALOG_DROP_REASONS } from './adapters/redis/catalog-codec';
import { UNPUBLISH_REASONS } from './ingest/ingest-cycle';
import { READ_FAILURE_REASONS } from './ingest/read-failure';

/** Creates each labelled series at 0, so `rate()` and dashboards see it before the first event. */
function zeroed<T extends Counter<'reason'>>(counter: T, reasons: readonly string[]): T {
  for (const reason of reasons) counter.inc({ reason }, 0);
  return counter;
}

/** Latency buckets from sub-millisecond cache hits to multi-second archive downloads. */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/** A fresh registry with the default process metrics (CPU, memory, event loop lag, GC). */
export function createRegistry(labels: Record<string, string> = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(labels);
  collectDefaultMetrics({ register: registry });
  // prom-client names these gauges `_total`, which Prometheus reserves for counters
  // (`promtool check metrics` rejects them); the per-type `nodejs_active_*` gauges remain.
  for (const name of [
    'nodejs_active_handles_total',
    'nodejs_active_requests_total',
    'nodejs_active_resources_total',
  ]) {
    registry.removeSingleMetric(name);
  }
  return registry;
}

/** Metrics of an API replica. */
export function createApiMetrics(registry: Registry) {
  return {
    httpRequests: new Counter({
      name: 'radar_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'radar_http_request_duration_seconds',
      help: 'Time from request to the last byte handed to the socket, by route template, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    httpResponseBytes: new Counter({
      name: 'radar_http_response_bytes_total',
      help: 'Response body bytes sent, by route template, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
    }),
    httpInFlight: new Gauge({
      name: 'radar_http_requests_in_flight',
      help: 'Requests being answered now (replica saturation).',
      registers: [registry],
    }),
    rateLimitDecisions: new Counter({
      name: 'radar_rate_limit_decisions_total',
      help: 'Rate-limit decisions, by decision (allowed, limited) and key tier (the per-window limit).',
      labelNames: ['decision', 'tier'] as const,
      registers: [registry],
    }),
    rateLimiterDegraded: new Gauge({
      name: 'radar_rate_limiter_degraded',
      help: '1 while the shared (Redis) limiter is unavailable and the in-memory insurance limiter decides.',
      registers: [registry],
    }),
    // prom-client declarations repeat a shape: each metric is its own name, help and labels.
    authFailures: new Counter({
      name: 'radar_auth_failures_total',
      help: 'Requests refused by authentication (401) or authorisation (403), by reason.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    storeDuration: new Histogram({
      name: 'radar_object_store_request_duration_seconds',
      help: 'Archive store requests until the first byte (or failure), by operation.',
      labelNames: ['operation'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    storeErrors: new Counter({
      name: 'radar_object_store_errors_total',
      help: 'Archive store failures, by operation and kind (not_found, unavailable).',
      labelNames: ['operation', 'kind'] as const,
      registers: [registry],
    }),
    storeObjectErrors: new Counter({
      name: 'radar_object_store_object_errors_total',
      help: 'Archive reads refused because the stored object is not the published version or cannot be read, by reason (etag, size, range, status, forbidden). Per object: never counted as store errors.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    storeReadsRefused: new Counter({
      name: 'radar_object_store_reads_refused_total',
      help: 'Archive reads refused before reaching the store, by reason (key, client: the caller holds its share of open store reads; socket-wait: no pooled socket came free in time).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    storeReachable: new Gauge({
      name: 'radar_object_store_reachable',
      help: '1 when the archive store answered its last probe.',
      registers: [registry],
    }),
    storeBreakerOpen: new Gauge({
      name: 'radar_object_store_breaker_open',
      help: '1 while the archive store circuit breaker fails requests fast.',
      registers: [registry],
    }),
    catalogTimestamps: new Gauge({
      name: 'radar_catalog_timestamps',
      help: 'Published timestamps in this replica snapshot.',
      registers: [registry],
    }),
    latestAge: new Gauge({
      name: 'radar_latest_age_seconds',
      help: 'Age of the newest published timestamp (its value, UTC) at scrape time.',
      registers: [registry],
    }),
    catalogInSync: new Gauge({
      name: 'radar_catalog_in_sync',
      help: '1 when this replica snapshot is known to match the shared index.',
      registers: [registry],
    }),
    catalogRefused: zeroed(
      new Counter({
        name: 'radar_catalog_entries_refused_total',
        help: 'Catalog entries read from Redis and refused (not listed), by reason; each distinct entry once.',
        labelNames: ['reason'] as const,
        registers: [registry],
      }),
      CATALOG_DROP_REASONS,
    ),
    catalogResyncAge: new Gauge({
      name: 'radar_catalog_resync_age_seconds',
      help: 'Seconds since this replica last confirmed its snapshot against the index (0 in embedded mode).',
      registers: [registry],
    }),
    cacheHits: new Counter({
      name: 'radar_archive_cache_hits_total',
      help: 'Archive block reads answered from the hot cache.',
      registers: [registry],
    }),
    cacheMisses: new Counter({
      name: 'radar_archive_cache_misses_total',
      help: 'Archive block reads that went to the store (including joins of an in-flight load).',
      registers: [registry],
    }),
    cacheEvictions: new Counter({
      name: 'radar_archive_cache_evictions_total',
      help: 'Blocks evicted from the hot cache to stay within RADAR_CACHE_MB.',
      registers: [registry],
    }),
    cacheBytes: new Gauge({
      name: 'radar_archive_cache_bytes',
      help: 'Bytes held by the hot archive cache.',
      registers: [registry],
    }),
    healthy: new Gauge({
      name: 'radar_status_healthy',
      help: 'The healthy flag /status.json reports now (1 or 0).',
      registers: [registry],
    }),
  };
}

export type ApiMetrics = ReturnType<typeof createApiMetrics>;

/** Metrics of the ingest side (the worker, or the in-process ingest of embedded mode). */
export function createIngestMetrics(registry: Registry) {
  return {
    published: new Counter({
      name: 'radar_ingest_published_total',
      help: 'Archives published into the catalog.',
      registers: [registry],
    }),
    rejected: new Counter({
      name: 'radar_ingest_rejected_total',
      help: 'Archives refused by ingest, by reason (bad-name, bad-magic, section-outside-object, ...).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    republished: new Counter({
      name: 'radar_ingest_republished_total',
      help: 'Published timestamps whose object was replaced by a valid archive and republished with its new metadata.',
      registers: [registry],
    }),
    unpublished: zeroed(
      new Counter({
        name: 'radar_ingest_unpublished_total',
        help: 'Timestamps withdrawn by ingest, by reason (replaced-invalid, replaced-unreadable, object-missing, catalog-junk).',
        labelNames: ['reason'] as const,
        registers: [registry],
      }),
      UNPUBLISH_REASONS,
    ),
    readFailures: zeroed(
      new Counter({
        name: 'radar_ingest_read_failures_total',
        help: 'Failed reads or deletes of one object by ingest (retried with backoff), by reason.',
        labelNames: ['reason'] as const,
        registers: [registry],
      }),
      READ_FAILURE_REASONS,
    ),
    lag: new Histogram({
      name: 'radar_ingest_lag_seconds',
      help: 'Object last-modified to published in the catalog.',
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
      registers: [registry],
    }),
    leader: new Gauge({
      name: 'radar_ingest_leader',
      help: '1 while this worker holds the ingest leader lease.',
      registers: [registry],
    }),
    lastSuccessAge: new Gauge({
      name: 'radar_ingest_last_success_age_seconds',
      help: 'Seconds since the last complete ingest pass of this worker (-1 before the first).',
      registers: [registry],
    }),
  };
}

export type IngestMetrics = ReturnType<typeof createIngestMetrics>;

/** The exposition text and content type for `/metrics`. */
export async function exposition(
  registry: Registry,
): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
