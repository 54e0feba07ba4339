/**
 * Ingest pieces shared by the ingest worker and the in-process ingest of a replica without
 * Redis: the cycle over an archive source, and the polling loop that runs it.
 */
import type { Config } from '../config';
import type { ArchiveSource, CatalogWriter } from '../domain/ports';
import {
  createIngestCycle,
  INGEST_REJECTION_REASONS,
  type IngestCycle,
  type IngestEvents,
} from '../ingest/ingest-cycle';
import { createIngestWorker, type IngestWorkerOptions } from '../ingest/ingest-worker';
import type { Logger } from '../logger';
import type { IngestMetrics } from '../metrics';
import type { Component } from './component';

/** Ingest events feeding the ingest metrics. */
export function ingestMetricEvents(metrics: IngestMetrics | undefined): IngestEvents {
  if (!metrics) return {};
  // Every reason at 0 from the start, so rate() and the rejection alert see a series.
  for (const reason of INGEST_REJECTION_REASONS) metrics.rejected.inc({ reason }, 0);
  return {
    onPublished: (_timestamp, lagMs) => {
      metrics.published.inc();
      metrics.lag.observe(lagMs / 1000);
    },
    onRejected: (_name, reason) => metrics.rejected.inc({ reason }),
    onRepublished: () => metrics.republished.inc(),
    onUnpublished: (_timestamp, reason) => metrics.unpublished.inc({ reason }),
    onReadFailed: (_name, reason) => metrics.readFailures.inc({ reason }),
  };
}

export function ingestCycle(
  config: Config,
  source: ArchiveSource,
  catalog: CatalogWriter,
  logger: Logger,
  metrics: IngestMetrics | undefined,
): IngestCycle {
  return createIngestCycle({
    source,
    catalog,
    logger,
    retentionS: config.retentionS,
    ...ingestMetricEvents(metrics),
  });
}

/**
 * The polling ingest of a replica that owns its catalog (S3 without Redis): always the
 * leader, since no other process publishes into this catalog.
 */
export function soleIngestLoop(
  config: Config,
  cycle: IngestCycle,
  logger: Logger,
  overrides: Partial<Pick<IngestWorkerOptions, 'pollMs'>> = {},
): Component {
  const worker = createIngestWorker({
    cycle,
    lease: { acquire: async () => true, release: async () => {} },
    logger,
    pollMs: overrides.pollMs ?? config.ingestPollS * 1000,
    leaseRenewMs: 60_000,
  });
  return { name: 'ingest', start: () => worker.start(), stop: () => worker.stop() };
}
