/**
 * Ingest pieces shared by the ingest worker and the in-process ingest of a replica without
 * Redis: the cycle over an archive source, and the polling loop that runs it.
 */
import type { PublicationSettings } from '../config';
import type { ArchiveSource, CatalogWriter, RevalidationQueue } from '../domain/ports';
import { createIngestCycle, type IngestCycle } from '../ingest/ingest-cycle';
import { createIngestWorker, type IngestWorkerOptions } from '../ingest/ingest-worker';
import type { Logger } from '../logger';
import type { IngestMetrics } from '../observability/ingest-metrics';
import type { Component } from './component';

export function ingestCycle(
  publication: Pick<PublicationSettings, 'retentionS'>,
  source: ArchiveSource,
  catalog: CatalogWriter,
  logger: Logger,
  metrics: IngestMetrics | undefined,
  revalidation?: RevalidationQueue,
): IngestCycle {
  return createIngestCycle({
    source,
    catalog,
    logger,
    retentionS: publication.retentionS,
    ...(revalidation ? { revalidation } : {}),
    ...metrics,
  });
}

/**
 * The polling ingest of a replica that owns its catalog (S3 without Redis): always the
 * leader, since no other process publishes into this catalog.
 */
export function soleIngestLoop(
  pollS: number,
  cycle: IngestCycle,
  logger: Logger,
  overrides: Partial<Pick<IngestWorkerOptions, 'pollMs'>> = {},
): Component {
  const worker = createIngestWorker({
    cycle,
    lease: { acquire: async () => true, release: async () => {} },
    logger,
    pollMs: overrides.pollMs ?? pollS * 1000,
    leaseRenewMs: 60_000,
  });
  return { name: 'ingest', start: () => worker.start(), stop: () => worker.stop() };
}
