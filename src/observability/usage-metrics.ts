/**
 * Usage metrics, declared where they are fed: the flusher's outcomes and dropped requests
 * (returned as its listeners), what the meter holds, and the busiest keys of the current UTC
 * hour fleet-wide, read from the usage store when `/metrics` is scraped. A per-key series for
 * every key would be unbounded; the top `TOP_KEYS` are a fixed number of series per scrape,
 * labelled by key id (never the key itself).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { UsageStore } from '../domain/usage-ports';
import { hourOf } from '../domain/usage';
import type { UsageFlushEvents } from '../serving/usage-flusher';

/** How many of the busiest keys the top-keys gauge exports. */
export const TOP_KEYS = 10;

export interface UsageReadings {
  /** Key-hours the replica holds: the meter's (this hour's keys, unflushed ones) and pending batches'. */
  readonly held: () => number;
  /** The store the top keys are read from (fleet-wide with Redis). */
  readonly store: UsageStore;
  /** Longest wait for the store at a scrape; past it the gauge exports nothing this time. */
  readonly readTimeoutMs: number;
  readonly now?: () => number;
}

/** Registers the usage metrics on `registry`; returns the flusher's listeners. */
export function createUsageMetrics(registry: Registry, read: UsageReadings): UsageFlushEvents {
  const now = read.now ?? Date.now;
  const flushes = new Counter({
    name: 'radar_usage_flushes_total',
    help: 'Usage flushes to the usage store, by outcome (ok, failed; a failed one is retried).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['ok', 'failed']) flushes.inc({ outcome }, 0);
  const dropped = new Counter({
    name: 'radar_usage_dropped_requests_total',
    help: 'Requests not counted in usage because the replica held RADAR_USAGE_MAX_ENTRIES key-hours.',
    registers: [registry],
  });
  new Gauge({
    name: 'radar_usage_held_entries',
    help: "Key-hours of usage this replica holds: this hour's keys, and counts the usage store has not acknowledged yet.",
    registers: [registry],
    collect() {
      this.set(read.held());
    },
  });
  new Gauge({
    name: 'radar_usage_top_key_requests',
    help: `Requests in the current UTC hour of the ${TOP_KEYS} busiest API keys, fleet-wide as flushed to the usage store, by key id.`,
    labelNames: ['key'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const top = await Promise.race([
        read.store.top(hourOf(now()), TOP_KEYS),
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), read.readTimeoutMs);
        }),
      ]).catch(() => undefined);
      clearTimeout(timer);
      for (const { keyId, requests } of top ?? []) this.set({ key: keyId }, requests);
    },
  });
  return {
    onFlush: (outcome) => flushes.inc({ outcome }),
    onDropped: (requests) => dropped.inc(requests),
  };
}
