/**
 * Every metric family a replica and the ingest worker register, on one fresh registry, for the
 * tests that walk the declarations (names, labels, counters exported at 0). Each factory is the
 * file that feeds its metrics; a new factory is added here once.
 */
import type { ArchiveStore } from '../../src/domain/ports';
import { instrumentArchiveStore } from '../../src/instrument';
import { createRegistry } from '../../src/metrics';
import { createCacheMetrics } from '../../src/wiring/cache-metrics';
import { createCatalogMetrics } from '../../src/wiring/catalog-metrics';
import { createGuardMetrics } from '../../src/wiring/guard-metrics';
import { createIngestMetrics } from '../../src/wiring/ingest-metrics';
import { createRequestMetrics } from '../../src/wiring/request-metrics';

export function declaredMetrics() {
  const registry = createRegistry();
  createRequestMetrics(registry);
  createGuardMetrics(registry, { defaultLimit: 1 });
  instrumentArchiveStore({} as ArchiveStore, registry);
  createCacheMetrics(registry);
  createCatalogMetrics(registry);
  createIngestMetrics(registry);
  return registry;
}
