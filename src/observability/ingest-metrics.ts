/**
 * The ingest counters, declared where they are fed: each is registered on the shared registry
 * and returned only as the cycle's event handlers, so adding an ingest metric touches this
 * file alone (docs/metrics.md). Labelled series start at 0 for `rate()` and the alerts.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import {
  INGEST_REJECTION_REASONS,
  UNPUBLISH_REASONS,
  type IngestEvents,
} from '../ingest/ingest-events';
import { READ_FAILURE_REASONS } from '../ingest/read-failure';
import { zeroed } from './registry';

/** Registers the ingest metrics on `registry`; returns the events that feed them. */
export function createIngestMetrics(registry: Registry): IngestEvents {
  const published = new Counter({
    name: 'radar_ingest_published_total',
    help: 'Archives published into the catalog.',
    registers: [registry],
  });
  const rejected = zeroed(
    new Counter({
      name: 'radar_ingest_rejected_total',
      help: 'Archives refused by ingest, by reason (bad-name, bad-magic, section-outside-object, bad-root-directory, bad-metadata, bad-leaf-directory, ...).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    INGEST_REJECTION_REASONS,
  );
  const republished = new Counter({
    name: 'radar_ingest_republished_total',
    help: 'Published timestamps whose object was replaced by a valid archive and republished with its new metadata.',
    registers: [registry],
  });
  const unpublished = zeroed(
    new Counter({
      name: 'radar_ingest_unpublished_total',
      help: 'Timestamps withdrawn by ingest, by reason (replaced-invalid, replaced-unreadable, object-missing, catalog-junk, failed-revalidation).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    UNPUBLISH_REASONS,
  );
  const readFailures = zeroed(
    new Counter({
      name: 'radar_ingest_read_failures_total',
      help: 'Failed reads or deletes of one object by ingest (retried with backoff), by reason.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    READ_FAILURE_REASONS,
  );
  const lag = new Histogram({
    name: 'radar_ingest_lag_seconds',
    help: 'Object last-modified to published in the catalog.',
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });
  return {
    onPublished: (_timestamp, lagMs) => {
      published.inc();
      lag.observe(lagMs / 1000);
    },
    onRejected: (_name, reason) => rejected.inc({ reason }),
    onRepublished: () => republished.inc(),
    onUnpublished: (_timestamp, reason) => unpublished.inc({ reason }),
    onReadFailed: (_name, reason) => readFailures.inc({ reason }),
  };
}

export type IngestMetrics = IngestEvents;
