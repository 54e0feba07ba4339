/**
 * Where a frame lives on the service. A frame is named by its archive key: an observed frame by
 * its 12-digit timestamp (`/tiles/{timestamp}...`), a forecast frame by `forecast-{base}-{LLL}`
 * (`/forecasts/{base}/{lead}...`). One key type lets the archive readers, the frame registry and
 * the map frames hold observed and forecast frames alike, while a forecast never takes an
 * observed frame's URL.
 */
import { parseForecastKey } from '../domain/forecast-frames';

const TIMESTAMP = /^[0-9]{12}$/;

/**
 * The service path of a frame without its suffix: `/tiles/202611281200` or
 * `/forecasts/202611281200/30`. Throws `RangeError` for any other key.
 */
export function framePathStem(key: string): string {
  if (TIMESTAMP.test(key)) return `/tiles/${key}`;
  const forecast = parseForecastKey(key);
  if (forecast !== undefined) return `/forecasts/${forecast.base}/${forecast.lead}`;
  throw new RangeError(`not a 12-digit timestamp nor a forecast frame key: ${key}`);
}
