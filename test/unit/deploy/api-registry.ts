/**
 * Every metric family a replica, the ingest worker and the MRMS producer register, on one fresh registry, for the
 * tests that walk the declarations (names, labels, counters exported at 0). Each factory is the
 * file that feeds its metrics; a new factory is added here once.
 */
import type { ArchiveStore } from '../../../src/domain/ports';
import { instrumentArchiveStore } from '../../../src/observability/archive-store-metrics';
import { createRegistry } from '../../../src/observability/registry';
import { createCacheMetrics } from '../../../src/observability/cache-metrics';
import { createCatalogMetrics } from '../../../src/observability/catalog-metrics';
import { createGuardMetrics } from '../../../src/observability/guard-metrics';
import { createIngestMetrics } from '../../../src/observability/ingest-metrics';
import { createMrmsMetrics, mrmsGauges } from '../../../src/observability/mrms-metrics';
import { createRequestMetrics } from '../../../src/observability/request-metrics';
import { createUsageMetrics } from '../../../src/observability/usage-metrics';
import type { UsageStore } from '../../../src/domain/usage-ports';

export function declaredMetrics() {
  const registry = createRegistry();
  createRequestMetrics(registry);
  createGuardMetrics(registry, { defaultLimit: 1 });
  instrumentArchiveStore({} as ArchiveStore, registry);
  createCacheMetrics(registry);
  createCatalogMetrics(registry);
  createIngestMetrics(registry);
  createUsageMetrics(registry, { held: () => 0, store: {} as UsageStore, readTimeoutMs: 1 });
  createMrmsMetrics(registry);
  mrmsGauges(registry, { isLeader: () => false, newestValidTimeMs: () => undefined });
  return registry;
}
