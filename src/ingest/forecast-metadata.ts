/**
 * What a forecast archive's metadata must say beyond an observed one's: that it is a forecast,
 * which frame it is (the same base and lead as its name, valid at base + lead), and every lead
 * of its base's cycle (so ingest knows when the base is complete and may be listed). A closed
 * list of reasons, counted by the rejection metric like the structural ones.
 */
import {
  type ForecastFrameId,
  forecastValidTimestamp,
  MAX_LEAD_MINUTES,
} from '../domain/forecast-frames';
import { MAX_BASE_LEADS } from '../domain/forecast-manifest-codec';

/** Every reason a forecast archive's metadata is refused. */
export const FORECAST_REJECTION_REASONS = [
  'not-forecast',
  'forecast-mismatch',
  'forecast-bad-valid',
  'forecast-bad-leads',
] as const;
export type ForecastRejectionReason = (typeof FORECAST_REJECTION_REASONS)[number];

/** A refusal with its detail (logged; the reason alone is counted). */
export interface ForecastMetadataProblem {
  readonly reason: ForecastRejectionReason;
  readonly detail: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isLead = (v: unknown): v is number =>
  Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= MAX_LEAD_MINUTES;

/**
 * The leads of the frame's cycle (ascending) when `metadata` describes the forecast frame `id`,
 * else the problem.
 */
export function checkForecastMetadata(
  metadata: Readonly<Record<string, unknown>>,
  id: ForecastFrameId,
): { readonly leads: readonly number[] } | ForecastMetadataProblem {
  if (metadata.kind !== 'forecast')
    return { reason: 'not-forecast', detail: `kind ${JSON.stringify(metadata.kind)}` };
  const forecast = metadata.forecast;
  if (!isRecord(forecast)) return { reason: 'not-forecast', detail: 'no "forecast" object' };
  if (forecast.base !== id.base || forecast.lead !== id.lead)
    return {
      reason: 'forecast-mismatch',
      detail: `metadata names base ${JSON.stringify(forecast.base)} lead ${JSON.stringify(forecast.lead)}`,
    };
  const valid = forecastValidTimestamp(id);
  if (forecast.valid !== valid || metadata.timestamp !== valid)
    return {
      reason: 'forecast-bad-valid',
      detail: `valid ${JSON.stringify(forecast.valid)}, timestamp ${JSON.stringify(metadata.timestamp)}; expected ${valid}`,
    };
  const leads = forecast.leads;
  if (
    !Array.isArray(leads) ||
    leads.length === 0 ||
    leads.length > MAX_BASE_LEADS ||
    !leads.every(isLead) ||
    new Set(leads).size !== leads.length ||
    !leads.includes(id.lead)
  )
    return {
      reason: 'forecast-bad-leads',
      detail: `leads ${JSON.stringify(leads)?.slice(0, 200)} must be distinct leads including ${id.lead}`,
    };
  return { leads: [...(leads as number[])].sort((a, b) => a - b) };
}
