/**
 * Ingest pieces shared by the ingest worker and the in-process ingest of a replica without
 * Redis: the cycle over an archive source, and the polling loop that runs it.
 */
import type { PublicationSettings } from '../config';
import type { ArchiveSource, CatalogWriter, RevalidationQueue } from '../domain/ports';
import type { ForecastCatalogWriter } from '../domain/forecast-catalog';
import { createForecastCycle } from '../ingest/forecast-cycle';
import { createIngestCycle, type IngestCycle } from '../ingest/ingest-cycle';
import { createIngestPass } from '../ingest/ingest-pass';
import { createIngestWorker, type IngestWorkerOptions } from '../ingest/ingest-worker';
import type { Logger } from '../logger';
import type { IngestMetrics } from '../observability/ingest-metrics';
import type { Component } from './component';

/** The catalogs one ingest pass writes: observed frames' and forecast frames'. */
export interface IngestCatalogs {
  readonly observed: CatalogWriter;
  readonly forecasts: ForecastCatalogWriter;
}

/** One ingest pass: the observed cycle and the forecast cycle over one listing of `source`. */
export function ingestCycle(
  publication: Pick<PublicationSettings, 'retentionS' | 'forecastGraceS'>,
  source: ArchiveSource,
  catalogs: IngestCatalogs,
  logger: Logger,
  metrics: IngestMetrics | undefined,
  revalidation?: RevalidationQueue,
): IngestCycle {
  return createIngestPass({
    source,
    retentionS: publication.retentionS,
    observed: (observedSource) =>
      createIngestCycle({
        source: observedSource,
        catalog: catalogs.observed,
        logger,
        retentionS: publication.retentionS,
        ...(revalidation ? { revalidation } : {}),
        ...metrics,
      }),
    forecast: createForecastCycle({
      source,
      catalog: catalogs.forecasts,
      logger,
      graceMs: publication.forecastGraceS * 1000,
      ...metrics,
    }),
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
