/**
 * One structured log line and one set of metrics per request, recorded when the response is
 * finished or aborted: route template (never the raw path), method, status, bytes, duration,
 * key id, app id and request id. The request id comes from `X-Request-Id` (set by nginx) when
 * it is well-formed, else is generated, and is echoed on the response.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../../logger';
import type { Tally } from '../../tally';
import type { Caller } from './authenticate';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Label for requests no route matched; one shared value keeps cardinality bounded. */
export const UNMATCHED_ROUTE = 'unmatched';

function routeOf(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' ? matched : UNMATCHED_ROUTE;
}

/** One request series' handles: counts added at scrape time, the duration observed at once. */
export interface RequestSeries {
  readonly count: Tally;
  readonly bytes: Tally;
  observe(seconds: number): void;
}

/** The request metrics as the log feeds them (declared in `wiring/request-metrics.ts`). */
export interface RequestMetrics {
  /** The handles of one series, made once (bounded: route × method × status). */
  series(route: string, method: string, status: number): RequestSeries;
  /**
   * Creates `GET` series at 0 for each route template and `PRIMED_STATUSES`, so request rates,
   * error ratios and latency panels have a series before the first request.
   */
  prime(routes: readonly string[]): void;
  /** Reads the requests being answered at each scrape. */
  inFlight(read: () => number): void;
}

/** Statuses every route's request series start with at 0: success, and the 5xx of an outage. */
export const PRIMED_STATUSES = ['200', '503'] as const;

export function requestLog(logger: Logger, metrics?: RequestMetrics): Middleware {
  let inFlight = 0;
  metrics?.inFlight(() => inFlight);
  return (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.req.headers['x-request-id'];
    const requestId =
      typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    inFlight++;
    const res = ctx.res;
    res.once('close', () => {
      inFlight--;
      const seconds = (performance.now() - started) / 1000;
      const route = routeOf(ctx);
      const finished = res.writableFinished;
      const status = finished ? ctx.status : 499; // 499: client went away
      const method = ctx.method;
      const bytes =
        method === 'HEAD' || status === 304 || status === 204
          ? 0
          : Number(ctx.response.length ?? 0);
      if (metrics) {
        const series = metrics.series(route, method, status);
        series.count.add();
        series.observe(seconds);
        if (finished && bytes > 0) series.bytes.add(bytes);
      }
      if (!logger.isLevelEnabled('info')) return;
      const caller = ctx.state.caller as Caller | undefined;
      logger.info(
        {
          requestId,
          method,
          route,
          status,
          bytes: finished ? bytes : Math.max(0, res.socket?.bytesWritten ?? 0),
          durationMs: Math.round(seconds * 1e4) / 10,
          keyId: caller?.keyId,
          appId: caller?.appId,
          ip: ctx.ip,
        },
        'request',
      );
    });
    return next();
  };
}
