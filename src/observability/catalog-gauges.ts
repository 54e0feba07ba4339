/**
 * The scrape-time gauges of a replica's catalog snapshot: how many timestamps it lists, how old
 * the newest is, and whether (and when last) it was confirmed against the shared index.
 */
import type { Registry } from 'prom-client';
import type { CatalogReader } from '../domain/ports';
import { parseTimestamp } from '../domain/timestamps';
import { finiteOr, liveGauge } from './registry';

export function catalogGauges(
  registry: Registry,
  catalog: CatalogReader,
  now: () => number = Date.now,
): void {
  // Gauge declarations repeat a shape (as in the metrics files): each is its own name, help and source.
  liveGauge(
    registry,
    'radar_catalog_timestamps',
    'Published timestamps in this replica snapshot.',
    () => catalog.current().timestamps.length,
  );
  liveGauge(
    registry,
    'radar_latest_age_seconds',
    'Age of the newest published timestamp (its value, UTC) at scrape time.',
    () => {
      const latest = catalog.current().timestamps[0];
      const latestMs = latest === undefined ? undefined : parseTimestamp(latest);
      // No data at all reads as infinitely stale, which is what the staleness alert should see.
      return latestMs === undefined ? Number.POSITIVE_INFINITY : (now() - latestMs) / 1000;
    },
  );
  liveGauge(
    registry,
    'radar_catalog_in_sync',
    '1 when this replica snapshot is known to match the shared index.',
    () => catalog.inSync(),
  );
  liveGauge(
    registry,
    'radar_catalog_resync_age_seconds',
    'Seconds since this replica last confirmed its snapshot against the index (0 in embedded mode).',
    () => finiteOr(-1, catalog.syncAgeS()),
  );
}
