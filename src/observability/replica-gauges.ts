/**
 * What a replica's parts are at scrape time, as gauges read when `/metrics` is scraped
 * (`liveGauge`): nothing refreshes them by hand, and adding one touches this file.
 */
import type { Registry } from 'prom-client';
import { liveGauge } from './registry';

/** The readings the replica's parts offer. */
export interface ReplicaReadings {
  /** Bytes held by the hot archive cache. */
  readonly cacheBytes: () => number;
  /** The archive store's circuit breaker refuses reads now. */
  readonly breakerOpen: () => boolean;
  /** The shared (Redis) limiter is failing and the in-memory insurance decides. */
  readonly limiterDegraded: () => boolean;
  /** The archive store answered this replica's last probe. */
  readonly storeReachable: () => boolean;
  /** The `healthy` flag `/status.json` reports now. */
  readonly healthy: () => boolean;
}

export function replicaGauges(registry: Registry, read: ReplicaReadings): void {
  liveGauge(
    registry,
    'radar_archive_cache_bytes',
    'Bytes held by the hot archive cache.',
    read.cacheBytes,
  );
  liveGauge(
    registry,
    'radar_object_store_breaker_open',
    '1 while the archive store circuit breaker fails requests fast.',
    read.breakerOpen,
  );
  liveGauge(
    registry,
    'radar_rate_limiter_degraded',
    '1 while the shared (Redis) limiter is unavailable and the in-memory insurance limiter decides.',
    read.limiterDegraded,
  );
  liveGauge(
    registry,
    'radar_object_store_reachable',
    '1 when the archive store answered its last probe.',
    read.storeReachable,
  );
  liveGauge(
    registry,
    'radar_status_healthy',
    'The healthy flag /status.json reports now (1 or 0).',
    read.healthy,
  );
}
