/**
 * Where a frame lives on the service. A frame is named by its archive key: an observed frame by
 * its 12-digit timestamp (`/tiles/{timestamp}...`), a forecast frame by `forecast-{base}-{LLL}`
 * (`/forecasts/{base}/{lead}...`). One key type lets the archive readers, the frame registry and
 * the map frames hold observed and forecast frames alike, while a forecast never takes an
 * observed frame's URL.
 */
import { forecastPathStem, parseForecastKey } from '../domain/forecast-frames';
import { hasTimestampShape } from '../domain/timestamps';

/**
 * The service path of a frame without its suffix: `/tiles/202611281200` or
 * `/forecasts/202611281200/30`. Throws `RangeError` for any other key.
 */
export function framePathStem(key: string): string {
  if (hasTimestampShape(key)) return `/tiles/${key}`;
  const forecast = parseForecastKey(key);
  if (forecast !== undefined) return forecastPathStem(forecast);
  throw new RangeError(`not a 12-digit timestamp nor a forecast frame key: ${key}`);
}
