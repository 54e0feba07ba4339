/**
 * One structured log line, one set of metrics and one usage count per request, recorded when
 * the response is finished or aborted: route template (never the raw path), method, status,
 * bytes, duration, key id, app id and request id. The request id comes from `X-Request-Id`
 * (set by nginx) when it is well-formed, else is generated, and is echoed on the response.
 * Usage counts every request that named a known key (allowed, or refused for that key) under
 * that key; requests without one (no or unknown key, preflights, the API description) are not
 * usage (docs/usage.md).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger';
import type { Tally } from '../observability/tally';
import type { UsageCounter } from '../serving/usage-meter';
import type { Caller } from './core/authorise';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** One request series' handles: counts added at scrape time, the duration observed at once. */
export interface RequestSeries {
  readonly count: Tally;
  readonly bytes: Tally;
  observe(seconds: number): void;
}

/** The request metrics as the log feeds them (declared in `observability/request-metrics.ts`). */
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

/** One finished (or abandoned) request as the log and the metrics see it. */
export interface RequestRecord {
  readonly requestId: string;
  readonly method: string;
  readonly route: string;
  readonly status: number;
  /**
   * Bytes of the body handed to the connection (0 for HEAD/304/204): the whole length when
   * `finished`, what the body stream had passed to the response when cut. The byte metric
   * counts finished responses only; usage counts both.
   */
  readonly bytes: number;
  readonly finished: boolean;
  readonly seconds: number;
  readonly caller: Caller | undefined;
  /** The known key a refused request named (401/403), when not `caller`. */
  readonly refusedKey: string | undefined;
  /** Read only when the log line is written (info level). */
  readonly ip: () => string;
  /** Bytes on the socket, logged for an unfinished response. */
  readonly bytesWritten: () => number;
}

/** Records requests into the log and metrics (the answer writer calls it once per response). */
export interface RequestRecorder {
  /** The request id: a well-formed `X-Request-Id` from nginx, else a new one. */
  requestId(incoming: string | string[] | undefined): string;
  record(entry: RequestRecord): void;
}

export function requestRecorder(
  logger: Logger,
  metrics?: RequestMetrics,
  usage?: UsageCounter,
): RequestRecorder {
  return {
    requestId: (incoming) =>
      typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID(),
    record(entry) {
      const { method, route, status, finished } = entry;
      const bytes = method === 'HEAD' || status === 304 || status === 204 ? 0 : entry.bytes;
      if (metrics) {
        const series = metrics.series(route, method, status);
        series.count.add();
        series.observe(entry.seconds);
        if (finished && bytes > 0) series.bytes.add(bytes);
      }
      if (usage !== undefined) {
        const keyId = entry.caller?.keyId ?? entry.refusedKey;
        if (keyId !== undefined) usage.count(keyId, route, status, bytes);
      }
      if (!logger.isLevelEnabled('info')) return;
      logger.info(
        {
          requestId: entry.requestId,
          method,
          route,
          status,
          bytes: finished ? bytes : Math.max(0, entry.bytesWritten()),
          durationMs: Math.round(entry.seconds * 1e4) / 10,
          keyId: entry.caller?.keyId,
          appId: entry.caller?.appId,
          ip: entry.ip(),
        },
        'request',
      );
    },
  };
}
