/**
 * The radar status record (`GET /status.json`), validated before use: a map that animates a
 * malformed timestamp list fails later and far less clearly. The service lists `timestamps`
 * newest first; the client sorts them newest first itself anyway, so it also works against a
 * server of the same interface that lists them in another order.
 */
import { parseTimestamp } from '../domain/timestamps';
import { RadarResponseError } from './errors';

/** The status record with `timestamps` unique and sorted newest first. */
export interface RadarStatus {
  /** The service's own health verdict (fresh data, store reachable). */
  readonly healthy: boolean;
  /** Latest published timestamp, 12 UTC digits `YYYYMMDDHHmm`. */
  readonly latest: string;
  /** Every published timestamp, newest first, each usable in `/tiles/{timestamp}.pmtiles`. */
  readonly timestamps: readonly string[];
}

const TIMESTAMP = /^[0-9]{12}$/;

/** Validates a parsed `/status.json` body; throws {@link RadarResponseError} on any violation. */
export function parseRadarStatus(body: unknown): RadarStatus {
  if (typeof body !== 'object' || body === null)
    throw new RadarResponseError('status is not a JSON object');
  const { healthy, latest, timestamps } = body as Record<string, unknown>;
  if (typeof healthy !== 'boolean') throw new RadarResponseError('status.healthy is not a boolean');
  if (typeof latest !== 'string' || !TIMESTAMP.test(latest)) {
    throw new RadarResponseError('status.latest is not a 12-digit timestamp');
  }
  if (
    !Array.isArray(timestamps) ||
    !timestamps.every((t) => typeof t === 'string' && TIMESTAMP.test(t))
  ) {
    throw new RadarResponseError('status.timestamps is not an array of 12-digit timestamps');
  }
  const sorted = [...new Set(timestamps as string[])].sort().reverse();
  return { healthy, latest, timestamps: sorted };
}

/** A timestamp as a `Date` (the digits are UTC), or `undefined` if it is not a real minute. */
export function timestampToDate(timestamp: string): Date | undefined {
  const ms = parseTimestamp(timestamp);
  return ms === undefined ? undefined : new Date(ms);
}
