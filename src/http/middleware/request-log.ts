/**
 * One structured log line and one set of metrics per request, recorded when the response is
 * finished or aborted: route template (never the raw path), method, status, bytes, duration,
 * key id, app id and request id. The request id comes from `X-Request-Id` (set by nginx) when
 * it is well-formed, else is generated, and is echoed on the response.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../../logger';
import type { ApiMetrics } from '../../metrics';
import type { Caller } from './authenticate';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Label for requests no route matched; one shared value keeps cardinality bounded. */
export const UNMATCHED_ROUTE = 'unmatched';

function routeOf(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' ? matched : UNMATCHED_ROUTE;
}

/** Per-series metric handles, so a request costs no label hashing (bounded: route × method × status). */
function createSeriesCache(metrics: ApiMetrics) {
  const series = new Map<
    string,
    { count: () => void; observe: (s: number) => void; bytes: (n: number) => void }
  >();
  return (route: string, method: string, status: string) => {
    const key = `${route} ${method} ${status}`;
    let handles = series.get(key);
    if (!handles) {
      const labels = { route, method, status };
      const requests = metrics.httpRequests.labels(labels);
      const duration = metrics.httpDuration.labels(labels);
      const bytes = metrics.httpResponseBytes.labels(labels);
      handles = {
        count: () => requests.inc(),
        observe: (s) => duration.observe(s),
        bytes: (n) => bytes.inc(n),
      };
      series.set(key, handles);
    }
    return handles;
  };
}

/** Statuses every route's request series start with at 0: success, and the 5xx of an outage. */
export const PRIMED_STATUSES = ['200', '503'] as const;

/**
 * Creates `GET` series at 0 for each route template and `PRIMED_STATUSES`, so request rates,
 * error ratios and latency panels have a series before the first request.
 */
export function primeRequestSeries(metrics: ApiMetrics, routes: readonly string[]): void {
  for (const route of routes) {
    for (const status of PRIMED_STATUSES) {
      const labels = { route, method: 'GET', status };
      metrics.httpRequests.inc(labels, 0);
      metrics.httpResponseBytes.inc(labels, 0);
      metrics.httpDuration.zero(labels);
    }
  }
}

export function requestLog(logger: Logger, metrics?: ApiMetrics): Middleware {
  const seriesFor = metrics ? createSeriesCache(metrics) : undefined;
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('X-Request-Id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    metrics?.httpInFlight.inc();
    ctx.res.once('close', () => {
      metrics?.httpInFlight.dec();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeOf(ctx);
      const status = ctx.res.writableFinished ? ctx.status : 499; // 499: client went away
      const bytes =
        ctx.method === 'HEAD' || status === 304 || status === 204
          ? 0
          : Number(ctx.response.length ?? 0);
      const sent = ctx.res.writableFinished
        ? bytes
        : Math.max(0, ctx.res.socket?.bytesWritten ?? 0);
      const series = seriesFor?.(route, ctx.method, String(status));
      series?.count();
      series?.observe(seconds);
      series?.bytes(ctx.res.writableFinished ? bytes : 0);
      if (!logger.isLevelEnabled('info')) return;
      const caller = ctx.state.caller as Caller | undefined;
      logger.info(
        {
          requestId,
          method: ctx.method,
          route,
          status,
          bytes: sent,
          durationMs: Math.round(seconds * 1e4) / 10,
          keyId: caller?.keyId,
          appId: caller?.appId,
          ip: ctx.ip,
        },
        'request',
      );
    });
    await next();
  };
}
