/**
 * The request metrics, declared where they are fed: count, bytes and in-flight are tallies
 * added at scrape time (`tally.ts`), the duration histogram is observed at once. The request
 * log reaches them only through `RequestMetrics`, so adding a request metric touches this file.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { PRIMED_STATUSES, type RequestMetrics, type RequestSeries } from '../http/request-recorder';
import { LATENCY_BUCKETS } from './registry';
import { createTallies } from './tally';

/** Registers the request metrics on `registry`; returns the per-series handles. */
export function createRequestMetrics(registry: Registry): RequestMetrics {
  const tallies = createTallies();
  const collect = tallies.flush;
  const labelNames = ['route', 'method', 'status'] as const;
  const requests = new Counter({
    name: 'radar_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status.',
    labelNames,
    registers: [registry],
    collect,
  });
  const duration = new Histogram({
    name: 'radar_http_request_duration_seconds',
    help: 'Time from request to the last byte handed to the socket, by route template, method and status.',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const bytes = new Counter({
    name: 'radar_http_response_bytes_total',
    help: 'Response body bytes sent, by route template, method and status.',
    labelNames,
    registers: [registry],
    collect,
  });
  const inFlight = new Gauge({
    name: 'radar_http_requests_in_flight',
    help: 'Requests being answered now (replica saturation).',
    registers: [registry],
    collect,
  });
  // Per-series handles, so a request costs no label hashing (bounded: route × method × status).
  const series = new Map<string, RequestSeries>();
  return {
    series(route, method, status) {
      const key = `${route} ${method} ${status}`;
      let handles = series.get(key);
      if (!handles) {
        const labels = { route, method, status: String(status) };
        const observed = duration.labels(labels);
        handles = {
          count: tallies.counter(requests, labels),
          bytes: tallies.counter(bytes, labels),
          observe: (seconds) => observed.observe(seconds),
        };
        series.set(key, handles);
      }
      return handles;
    },
    prime(routes) {
      for (const route of routes) {
        for (const status of PRIMED_STATUSES) {
          const labels = { route, method: 'GET', status };
          requests.inc(labels, 0);
          bytes.inc(labels, 0);
          duration.zero(labels);
        }
      }
    },
    inFlight: (read) => tallies.onScrape(() => inFlight.set(read())),
  };
}
