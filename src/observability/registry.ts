/**
 * Prometheus metrics (prom-client), one registry per process, exposed on the admin listener.
 * Labels are bounded vocabularies only: route templates (unmatched paths share `unmatched`),
 * methods, statuses, reasons, operations. Never a timestamp, key, app or raw path.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** Creates each labelled series at 0, so `rate()` and dashboards see it before the first event. */
export function zeroed<T extends Counter<'reason'>>(counter: T, reasons: readonly string[]): T {
  for (const reason of reasons) counter.inc({ reason }, 0);
  return counter;
}

/** Latency buckets from sub-millisecond cache hits to multi-second archive downloads. */
export const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/** A fresh registry with the default process metrics (CPU, memory, event loop lag, GC). */
export function createRegistry(labels: Record<string, string> = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(labels);
  // The event-loop lag histogram samples on a libuv timer of this period (prom-client's default
  // 10 ms wakes an idle replica 100 times a second: ~0.005 cores, the whole idle budget of a
  // replica in the benchmark targets). 100 ms still catches every stall that matters to a request.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  // prom-client names these gauges `_total`, which Prometheus reserves for counters
  // (`promtool check metrics` rejects them); the per-type `nodejs_active_*` gauges remain.
  for (const name of [
    'nodejs_active_handles_total',
    'nodejs_active_requests_total',
    'nodejs_active_resources_total',
  ]) {
    registry.removeSingleMetric(name);
  }
  return registry;
}

/**
 * A gauge read at scrape time: declared where its component is wired, beside the state it
 * reads, so adding one touches one file and nothing has to refresh it before a scrape.
 * Booleans export as 1 and 0.
 */
export function liveGauge(
  registry: Registry,
  name: string,
  help: string,
  read: () => number | boolean,
): Gauge {
  return new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      const value = read();
      this.set(typeof value === 'boolean' ? (value ? 1 : 0) : value);
    },
  });
}

/** `value`, or `fallback` when it is not finite (an age before the first event reads -1). */
export function finiteOr(fallback: number, value: number): number {
  return Number.isFinite(value) ? value : fallback;
}

/** The exposition text and content type for `/metrics`. */
export async function exposition(
  registry: Registry,
): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
