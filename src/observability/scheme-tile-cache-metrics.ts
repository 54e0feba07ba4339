/**
 * The scheme tile cache's counters (recoloured tiles kept for the scheme route), declared where
 * they are fed, as the hot archive cache's are: hits and misses are per scheme tile answered, so
 * they are tallies added at scrape time; evictions say the cache is smaller than the hot set.
 */
import { Counter, type Registry } from 'prom-client';
import type { SchemeTileCacheEvents } from '../tiles/scheme-tile-cache';
import { createTallies } from './tally';

/** Registers the scheme tile cache metrics on `registry`; returns the events that feed them. */
export function createSchemeTileCacheMetrics(registry: Registry): Required<SchemeTileCacheEvents> {
  const tallies = createTallies();
  const hits = tallies.counter(
    new Counter({
      name: 'radar_scheme_tile_cache_hits_total',
      help: 'Scheme tiles answered from the recoloured tile cache.',
      registers: [registry],
      collect: tallies.flush,
    }),
  );
  const misses = tallies.counter(
    new Counter({
      name: 'radar_scheme_tile_cache_misses_total',
      help: 'Scheme tiles recoloured from the stored tile (not in the recoloured tile cache).',
      registers: [registry],
      collect: tallies.flush,
    }),
  );
  const evictions = new Counter({
    name: 'radar_scheme_tile_cache_evictions_total',
    help: 'Recoloured tiles evicted to keep the scheme tile cache within its bytes.',
    registers: [registry],
  });
  return {
    onHit: () => hits.add(),
    onMiss: () => misses.add(),
    onEvict: () => evictions.inc(),
  };
}
