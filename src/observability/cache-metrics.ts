/**
 * The hot archive cache's counters, declared where they are fed: returned only as the cache's
 * events, so adding a cache metric touches this file. Hits and misses are per block read, so
 * they are tallies added at scrape time; evictions are rare and counted at once.
 */
import { Counter, type Registry } from 'prom-client';
import type { CacheEvents } from '../serving/block-cache';
import { createTallies } from './tally';

/** Registers the cache metrics on `registry`; returns the events that feed them. */
export function createCacheMetrics(registry: Registry): Required<CacheEvents> {
  const tallies = createTallies();
  const hits = tallies.counter(
    new Counter({
      name: 'radar_archive_cache_hits_total',
      help: 'Archive block reads answered from the hot cache.',
      registers: [registry],
      collect: tallies.flush,
    }),
  );
  const misses = tallies.counter(
    new Counter({
      name: 'radar_archive_cache_misses_total',
      help: 'Archive block reads that went to the store (including joins of an in-flight load).',
      registers: [registry],
      collect: tallies.flush,
    }),
  );
  const evictions = new Counter({
    name: 'radar_archive_cache_evictions_total',
    help: 'Blocks evicted from the hot cache to stay within RADAR_CACHE_MB.',
    registers: [registry],
  });
  return {
    onHit: () => hits.add(),
    onMiss: () => misses.add(),
    onEvict: () => evictions.inc(),
  };
}
