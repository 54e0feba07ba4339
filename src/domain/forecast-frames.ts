/**
 * Forecast frames: one archive per (base time, lead). A forecast is not an observation, so its
 * identity never takes the shape of an observed timestamp: its archive key is
 * `forecast-{base}-{LLL}` (lead in minutes, three digits, so names sort by base then lead),
 * stored as `forecast-{base}-{LLL}.pmtiles` beside the observed archives, and served under
 * `/forecasts/{base}/{lead}...`. The key is what the stores, caches and catalog index an
 * archive by, so forecast archives reuse the observed frames' storage and serving unchanged.
 */
import { formatTimestamp, parseTimestamp } from './timestamps';

/** The longest lead a forecast frame may have, in minutes (one day). */
export const MAX_LEAD_MINUTES = 1440;

/** One forecast frame: the observed frame it extrapolates and how far ahead. */
export interface ForecastFrameId {
  /** The observed timestamp the forecast starts from (12 digits). */
  readonly base: string;
  /** Minutes after the base time, 1..{@link MAX_LEAD_MINUTES}. */
  readonly lead: number;
}

const KEY = /^forecast-([0-9]{12})-([0-9]{3,4})$/;
const FILE = /^(forecast-[0-9]{12}-[0-9]{3,4})\.pmtiles$/;
/** A lead as a path segment: canonical decimal, no sign, no leading zero. */
const LEAD_SEGMENT = /^[1-9][0-9]{0,3}$/;

/** The lead of a path segment (`30`), or `undefined` unless canonical and in range. */
export function parseLead(segment: string): number | undefined {
  if (!LEAD_SEGMENT.test(segment)) return undefined;
  const lead = Number(segment);
  return lead <= MAX_LEAD_MINUTES ? lead : undefined;
}

/** The archive key of a forecast frame: `forecast-202611281200-030`. */
export function forecastKey({ base, lead }: ForecastFrameId): string {
  return `forecast-${base}-${String(lead).padStart(3, '0')}`;
}

/** The frame an archive key names, or `undefined` for any other key (observed ones included). */
export function parseForecastKey(key: string): ForecastFrameId | undefined {
  const match = KEY.exec(key);
  if (match === null) return undefined;
  const [, base, digits] = match as unknown as [string, string, string];
  const lead = Number(digits);
  if (parseTimestamp(base) === undefined || lead < 1 || lead > MAX_LEAD_MINUTES) return undefined;
  // One key per frame: `forecast-...-0030` is not a second name of `-030`.
  if (digits.length === 4 && digits.startsWith('0')) return undefined;
  return { base, lead };
}

/** Whether an archive key names a forecast frame (else it is an observed timestamp). */
export function isForecastKey(key: string): boolean {
  return parseForecastKey(key) !== undefined;
}

/** The forecast frame a stored file name names (`forecast-...-030.pmtiles`), or undefined. */
export function forecastFromFileName(name: string): ForecastFrameId | undefined {
  const match = FILE.exec(name);
  return match === null ? undefined : parseForecastKey(match[1]!);
}

/** The 12-digit valid time of a forecast frame: base time plus lead. */
export function forecastValidTimestamp({ base, lead }: ForecastFrameId): string {
  const baseMs = parseTimestamp(base);
  if (baseMs === undefined) throw new RangeError(`not a timestamp: ${base}`);
  return formatTimestamp(baseMs + lead * 60_000);
}

/**
 * The public path of a forecast frame without suffix, `/forecasts/{base}/{lead}`: what its
 * archive, TileJSON and tile paths extend, on the server and in the client alike.
 */
export function forecastPathStem({ base, lead }: ForecastFrameId): string {
  return `/forecasts/${base}/${lead}`;
}

/** The public path of a forecast frame's archive: `/forecasts/{base}/{lead}.pmtiles`. */
export function forecastArchivePath(id: ForecastFrameId): string {
  return `${forecastPathStem(id)}.pmtiles`;
}
