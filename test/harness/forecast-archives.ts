/**
 * Forecast archives for tests, made the way the service's producer makes them: a small
 * reflectivity grid drawn by the repository's own renderer (same palette, same tiles), with
 * the forecast metadata of the contract (docs/behaviour.md, "Forecast frames"): `kind`,
 * `forecast` {base, lead, valid, leads, method} and a small `motion` field. `overrides` replace
 * or remove (undefined) metadata fields and `validTimeMs` moves the renderer's own `timestamp`,
 * so a test can make every kind of invalid forecast.
 * Shared by the serving, viewer and producer tests.
 */
import {
  forecastKey,
  forecastValidTimestamp,
  type ForecastFrameId,
} from '../../src/domain/forecast-frames';
import { parseTimestamp } from '../../src/domain/timestamps';
import { NO_COVERAGE_MARKER, NO_ECHO_MARKER } from '../../src/domain/reflectivity-grid';
import { renderFrame } from '../../src/render/render-frame';

/** The default leads of a cycle, minutes. */
export const DEFAULT_LEADS: readonly number[] = [10, 20, 30, 40, 50, 60];
/** The method named in test archives' metadata. */
export const TEST_METHOD = 'test extrapolation 1';

/** A motion field in the contract's form: 4 x 2 cells over CONUS, a steady drift east. */
export function testMotionField(): Record<string, unknown> {
  const width = 4;
  const height = 2;
  const u = Buffer.alloc(width * height, 50); // 50 * 0.001 = 0.05 deg/min east
  const v = Buffer.alloc(width * height, 0);
  return {
    encoding: 'int8-base64',
    width,
    height,
    west: -125,
    north: 50,
    dLon: 14.75,
    dLat: 13,
    unit: 'degrees per minute',
    scale: 0.001,
    u: u.toString('base64'),
    v: v.toString('base64'),
  };
}

/**
 * The forecast fields of a frame's metadata as the contract has them (`kind`, `timestamp` =
 * valid time, `forecast`, `motion`), for archives a test builds with another writer.
 */
export function forecastMetadataOf(
  id: ForecastFrameId,
  leads: readonly number[] = [id.lead],
): Record<string, unknown> {
  const valid = forecastValidTimestamp(id);
  return {
    kind: 'forecast',
    timestamp: valid,
    forecast: { base: id.base, lead: id.lead, valid, leads: [...leads], method: TEST_METHOD },
    motion: testMotionField(),
  };
}

export interface ForecastArchiveOptions {
  /** Every lead of the base's cycle (default {@link DEFAULT_LEADS}). */
  readonly leads?: readonly number[];
  /** Highest zoom rendered (default 3: small and quick). */
  readonly maxZoom?: number;
  /** Metadata fields replaced (or removed, with `undefined`) after the contract's are set. */
  readonly overrides?: Readonly<Record<string, unknown>>;
  /** The grid's valid time (default base + lead): the renderer writes `timestamp` from it. */
  readonly validTimeMs?: number;
}

/** The stored file or object name of a forecast frame: `forecast-{base}-{LLL}.pmtiles`. */
export function forecastFileName(id: ForecastFrameId): string {
  return `${forecastKey(id)}.pmtiles`;
}

/**
 * The archive of forecast frame `id`: a 40 x 20 grid over CONUS with a band of echo whose
 * position moves east with the lead (so frames differ), rendered with the contract's metadata.
 */
export function forecastArchive(id: ForecastFrameId, options: ForecastArchiveOptions = {}): Buffer {
  const baseMs = parseTimestamp(id.base);
  if (baseMs === undefined) throw new RangeError(`not a timestamp: ${id.base}`);
  const width = 40;
  const height = 20;
  const values = new Float32Array(width * height).fill(NO_ECHO_MARKER);
  const column = (5 + Math.round(id.lead / 10)) % width;
  for (let r = 4; r < 16; r++) {
    values[r * width + column] = 45;
    values[r * width + ((column + 1) % width)] = 30;
    values[r * width] = NO_COVERAGE_MARKER;
  }
  const valid = forecastValidTimestamp(id);
  const metadata: Record<string, unknown> = {
    name: `test forecast +${id.lead} min from ${new Date(baseMs).toISOString()}`,
    description: `Reflectivity forecast +${id.lead} min from ${new Date(baseMs).toISOString()}`,
    kind: 'forecast',
    forecast: {
      base: id.base,
      lead: id.lead,
      valid,
      leads: [...(options.leads ?? DEFAULT_LEADS)],
      method: TEST_METHOD,
    },
    motion: testMotionField(),
  };
  for (const [field, value] of Object.entries(options.overrides ?? {})) {
    if (value === undefined) delete metadata[field];
    else metadata[field] = value;
  }
  return renderFrame(
    {
      width,
      height,
      west: -124.5,
      north: 49.5,
      dLon: 1.45,
      dLat: 1.2,
      values,
      noCoverage: NO_COVERAGE_MARKER,
      noEcho: NO_ECHO_MARKER,
      product: 'test forecast',
      validTimeMs: options.validTimeMs ?? baseMs + id.lead * 60_000,
    },
    { maxZoom: options.maxZoom ?? 3, metadata },
  );
}

/** Every frame of one base's cycle: `[fileName, bytes]` in lead order. */
export function forecastCycleArchives(
  base: string,
  options: ForecastArchiveOptions = {},
): Array<[string, Buffer]> {
  const leads = options.leads ?? DEFAULT_LEADS;
  return leads.map((lead) => [
    forecastFileName({ base, lead }),
    forecastArchive({ base, lead }, options),
  ]);
}
