/**
 * Radar frames with one echo moving east at a known speed, observed and forecast, for the
 * viewer's forecast tests: where the echo is in each frame is known, so a screenshot can be
 * checked against it (the forecast's own pixels, an interpolated picture between two frames).
 * Forecast archives are written as the nowcast producer writes them (same renderer, archive
 * key `forecast-{base}-{LLL}`, metadata `kind`, `forecast` and the motion field), into the
 * embedded replica's data directory, where its ingest picks them up.
 */
import { forecastKey, forecastValidTimestamp } from '../../src/domain/forecast-frames';
import type { ReflectivityGrid } from '../../src/domain/reflectivity-grid';
import { parseTimestamp } from '../../src/domain/timestamps';
import { createGridRenderPool } from '../../src/render/grid-render-pool';
import { uniformConusMotion } from '../fixtures/motion-field';
import type { ViewerApi } from './browser-api';
import { auth } from './embedded-api';
import { recentTimestamps } from './timestamps';

/** The echo's motion: degrees of longitude per minute, eastward. */
export const ECHO_SPEED = 0.3;
/** Latitude of the echo's centre. */
export const ECHO_LAT = 38;
/** The forecast leads published. */
export const LEADS = [10, 20, 30, 40, 50, 60] as const;
const RADIUS = 1.6; // degrees
const CELL = 0.05; // degrees

/** The moving echo's frames, newest observed frame = the forecasts' base. */
export interface MovingEcho {
  /** Observed timestamps, newest first. */
  readonly observed: readonly string[];
  readonly base: string;
  /** Longitude of the echo's centre at a 12-digit valid time. */
  echoLon(valid: string): number;
}

/** The echo's centre at `validMs`: `lon0` at `startMs`, moving {@link ECHO_SPEED} east. */
function lonAt(lon0: number, startMs: number, validMs: number): number {
  return lon0 + (ECHO_SPEED * (validMs - startMs)) / 60_000;
}

/** A CONUS grid (0.05 degrees) with no echo but a round one at `lon`: 50 dBZ centre, 20 at the rim. */
function echoGrid(lon: number, validMs: number): ReflectivityGrid {
  const west = -125;
  const north = 50;
  const width = Math.round(59 / CELL);
  const height = Math.round(26 / CELL);
  const values = new Float32Array(width * height).fill(-99);
  for (let r = 0; r < height; r++) {
    const lat = north - r * CELL;
    for (let c = 0; c < width; c++) {
      const d = Math.hypot(west + c * CELL - lon, lat - ECHO_LAT) / RADIUS;
      if (d < 1) values[r * width + c] = 50 - 30 * d;
    }
  }
  return {
    width,
    height,
    west,
    north,
    dLon: CELL,
    dLat: CELL,
    values,
    noCoverage: -999,
    noEcho: -99,
    product: 'moving-echo test',
    validTimeMs: validMs,
  };
}

/**
 * Publishes `count` observed frames ending now and the six forecast frames of the newest one,
 * all with the echo where its motion puts it; resolves once the status lists them all. Each
 * forecast renders in a pool of its own, since a pool renders every grid with one metadata.
 */
export async function publishMovingEcho(
  api: ViewerApi,
  count = 4,
  maxZoom = 5,
  leads: readonly number[] = LEADS,
): Promise<MovingEcho> {
  const observed = recentTimestamps(count);
  const base = observed[0]!;
  const startMs = parseTimestamp(observed.at(-1)!)!;
  const lon0 = -112;
  const pool = createGridRenderPool({ render: { maxZoom }, size: 2 });
  const motion = uniformConusMotion(ECHO_SPEED, 0, 0.005);
  try {
    await Promise.all(
      observed.map(async (timestamp) => {
        const ms = parseTimestamp(timestamp)!;
        await api.publish(timestamp, await pool.render(echoGrid(lonAt(lon0, startMs, ms), ms)));
      }),
    );
    await api.waitForAllListed(observed);
    for (const lead of leads) {
      const valid = forecastValidTimestamp({ base, lead });
      const validMs = parseTimestamp(valid)!;
      const pooled = createGridRenderPool({
        size: 1,
        render: {
          maxZoom,
          metadata: {
            name: `moving-echo forecast +${lead} min from ${base}`,
            description: `Forecast +${lead} min from ${new Date(parseTimestamp(base)!).toISOString()}`,
            kind: 'forecast',
            forecast: { base, lead, valid, leads: [...leads], method: 'moving-echo test 1' },
            motion,
          },
        },
      });
      try {
        const bytes = await pooled.render(echoGrid(lonAt(lon0, startMs, validMs), validMs));
        await api.publish(forecastKey({ base, lead }), bytes);
      } finally {
        await pooled.close();
      }
    }
  } finally {
    await pool.close();
  }
  if (leads.length > 0) await waitForForecasts(api, base, leads.length);
  return {
    observed,
    base,
    echoLon: (valid) => lonAt(lon0, startMs, parseTimestamp(valid)!),
  };
}

/** Waits until `/status.json` lists every lead of `base`. */
async function waitForForecasts(
  api: ViewerApi,
  base: string,
  count: number,
  timeoutMs = 10_000,
): Promise<void> {
  const started = Date.now();
  for (;;) {
    const response = await fetch(`${api.baseUrl}/status.json`, { headers: auth() });
    const body = (await response.json()) as { forecasts?: Array<{ base: string }> };
    if ((body.forecasts ?? []).filter((f) => f.base === base).length === count) return;
    if (Date.now() - started > timeoutMs)
      throw new Error(`the forecasts of ${base} were not listed within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
