/**
 * A forecast frame's identity as its TileJSON and archive metadata state it (`forecast`):
 * the observed base time it extrapolates, the lead, the valid time, every lead of that base's
 * cycle and the method. Validated before use, so a viewer never labels a frame from a
 * malformed record.
 */
import { forecastValidTimestamp, parseLead } from '../domain/forecast-frames';
import { parseTimestamp } from '../domain/timestamps';
import { RadarResponseError } from './errors';

/** The `forecast` record of a forecast frame. */
export interface RadarForecastInfo {
  /** Observed timestamp the forecast starts from (12 digits). */
  readonly base: string;
  /** Minutes after the base time. */
  readonly lead: number;
  /** Valid time, base + lead (12 digits). */
  readonly valid: string;
  /** Every lead of the base's cycle, ascending. */
  readonly leads: readonly number[];
  /** Name and version of the nowcast method, one line. */
  readonly method: string;
}

const isLead = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && parseLead(String(v)) === v;

/** Validates a `forecast` record; throws {@link RadarResponseError} on any violation. */
export function parseForecastInfo(body: unknown): RadarForecastInfo {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RadarResponseError('forecast is not a JSON object');
  const { base, lead, valid, leads, method } = body as Record<string, unknown>;
  if (typeof base !== 'string' || parseTimestamp(base) === undefined)
    throw new RadarResponseError('forecast.base is not a 12-digit timestamp');
  if (!isLead(lead)) throw new RadarResponseError('forecast.lead is not a lead in minutes');
  if (valid !== forecastValidTimestamp({ base, lead }))
    throw new RadarResponseError('forecast.valid is not base + lead');
  if (!Array.isArray(leads) || !leads.every(isLead) || !leads.includes(lead))
    throw new RadarResponseError('forecast.leads is not a list of leads holding forecast.lead');
  if (typeof method !== 'string') throw new RadarResponseError('forecast.method is not a string');
  return { base, lead, valid, leads: [...(leads as number[])].sort((a, b) => a - b), method };
}
