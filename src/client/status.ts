/**
 * The radar status record (`GET /status.json`), validated before use: a map that animates a
 * malformed timestamp list fails later and far less clearly. The service lists `timestamps`
 * newest first; the client sorts them newest first itself anyway, so it also works against a
 * server of the same interface that lists them in another order. `forecasts` lists the
 * forecast frames of the latest published nowcast; a server that predates forecasts omits the
 * field, which reads as none.
 */
import { forecastKey, forecastValidTimestamp, parseLead } from '../domain/forecast-frames';
import { parseTimestamp } from '../domain/timestamps';
import { RadarResponseError } from './errors';

/** One listed forecast frame: the base time it extrapolates, the lead and the valid time. */
export interface RadarStatusForecast {
  /** Observed timestamp the forecast starts from (12 digits). */
  readonly base: string;
  /** Minutes after the base time. */
  readonly lead: number;
  /** Base + lead (12 digits): the time the frame shows. */
  readonly valid: string;
}

/** The status record with `timestamps` unique and sorted newest first. */
export interface RadarStatus {
  /** The service's own health verdict (fresh data, store reachable). */
  readonly healthy: boolean;
  /** Latest published timestamp, 12 UTC digits `YYYYMMDDHHmm`. */
  readonly latest: string;
  /** Every published timestamp, newest first, each usable in `/tiles/{timestamp}.pmtiles`. */
  readonly timestamps: readonly string[];
  /**
   * Forecast frames of the latest published nowcast, by valid time (then lead); empty when
   * none is published. Never observed frames: `latest` and `timestamps` list only those.
   */
  readonly forecasts: readonly RadarStatusForecast[];
}

function parseForecast(entry: unknown): RadarStatusForecast {
  if (typeof entry !== 'object' || entry === null)
    throw new RadarResponseError('status.forecasts holds an entry that is not an object');
  const { base, lead, valid } = entry as Record<string, unknown>;
  if (
    typeof base !== 'string' ||
    parseTimestamp(base) === undefined ||
    typeof lead !== 'number' ||
    parseLead(String(lead)) !== lead ||
    valid !== forecastValidTimestamp({ base, lead })
  ) {
    throw new RadarResponseError(
      'status.forecasts holds an entry that is not { base, lead, valid = base + lead }',
    );
  }
  return { base, lead, valid };
}

const TIMESTAMP = /^[0-9]{12}$/;

/** Validates a parsed `/status.json` body; throws {@link RadarResponseError} on any violation. */
export function parseRadarStatus(body: unknown): RadarStatus {
  if (typeof body !== 'object' || body === null)
    throw new RadarResponseError('status is not a JSON object');
  const { healthy, latest, timestamps, forecasts } = body as Record<string, unknown>;
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
  if (forecasts !== undefined && !Array.isArray(forecasts))
    throw new RadarResponseError('status.forecasts is not an array');
  const listed = (forecasts ?? []).map(parseForecast);
  const unique = [...new Map(listed.map((f) => [forecastKey(f), f])).values()].sort(
    (a, b) => a.valid.localeCompare(b.valid) || a.lead - b.lead,
  );
  return { healthy, latest, timestamps: sorted, forecasts: unique };
}

/** A timestamp as a `Date` (the digits are UTC), or `undefined` if it is not a real minute. */
export function timestampToDate(timestamp: string): Date | undefined {
  const ms = parseTimestamp(timestamp);
  return ms === undefined ? undefined : new Date(ms);
}
