/**
 * The catalog's refusal counter, declared where it is fed: returned only as the Redis catalog's
 * `onDropped` listener, every reason at 0 from the start. Registered on every replica, so a
 * memory-catalog replica exports the same series (all 0).
 */
import { Counter, type Registry } from 'prom-client';
import { CATALOG_DROP_REASONS } from '../adapters/redis/catalog-codec';
import type { RedisCatalogOptions } from '../adapters/redis/catalog';
import { zeroed } from './registry';

/** Registers the catalog metrics on `registry`; returns the listener that feeds them. */
export function createCatalogMetrics(
  registry: Registry,
): NonNullable<RedisCatalogOptions['onDropped']> {
  const refused = zeroed(
    new Counter({
      name: 'radar_catalog_entries_refused_total',
      help: 'Catalog entries read from Redis and refused (not listed), by reason; each distinct entry once.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    CATALOG_DROP_REASONS,
  );
  return (_timestamp, reason) => refused.inc({ reason });
}
