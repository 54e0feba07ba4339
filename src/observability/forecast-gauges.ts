/**
 * The scrape-time gauges of a replica's forecast view: how old the listed forecast base is and
 * how many frames it lists. The age is now minus the listed base's base time (the observed
 * frame it extrapolates), so it grows between nowcast cycles and keeps growing when the
 * producer stops; NaN while no base is listed (no nowcast deployed, or none listed yet), so
 * the staleness alert stays quiet where there is no nowcast at all.
 */
import type { Registry } from 'prom-client';
import type { ForecastCatalogReader } from '../domain/forecast-catalog';
import { parseTimestamp } from '../domain/timestamps';
import { liveGauge } from './registry';

export function forecastGauges(
  registry: Registry,
  forecasts: ForecastCatalogReader,
  now: () => number = Date.now,
): void {
  liveGauge(
    registry,
    'radar_forecast_age_seconds',
    'Seconds since the base time of the listed forecast base (NaN while none is listed).',
    () => {
      const base = forecasts.current().listedBase;
      const baseMs = base === undefined ? undefined : parseTimestamp(base);
      return baseMs === undefined ? Number.NaN : (now() - baseMs) / 1000;
    },
  );
  liveGauge(
    registry,
    'radar_forecast_frames_listed',
    'Forecast frames /status.json lists (the listed base, every lead).',
    () => forecasts.current().listed.length,
  );
}
