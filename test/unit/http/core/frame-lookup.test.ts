/**
 * The forecast frames' lookup of the core: a malformed base or lead is a 400 before any
 * lookup, a readable frame answers synchronously, a frame of a base newer than the listed one
 * is asked of the shared manifest (a replica that has not heard yet must not answer 404 for a
 * frame another lists), and the listed base or an older one is a synchronous 404.
 */
import {
  createForecastView,
  type ForecastCatalogReader,
  type ForecastView,
} from '../../../../src/domain/forecast-catalog';
import type { ArchiveMeta } from '../../../../src/domain/ports';
import { BadRequestError, NotFoundError } from '../../../../src/errors';
import { forecastFrames } from '../../../../src/http/core/frame-lookup';

const meta = (key: string): ArchiveMeta => ({
  timestamp: key,
  size: 4096,
  etag: '"e"',
  lastModified: new Date(0),
});
const LISTED = '202611281200';
const view: ForecastView = createForecastView(1, {
  bases: [
    {
      base: LISTED,
      leads: [10, 20],
      frames: [meta(`forecast-${LISTED}-010`), meta(`forecast-${LISTED}-020`)],
    },
  ],
});

function reader(shared: Record<string, ArchiveMeta> = {}) {
  const asked: string[] = [];
  const forecasts: ForecastCatalogReader = {
    current: () => view,
    find: async (key) => {
      asked.push(key);
      return shared[key];
    },
  };
  return { forecasts, asked };
}

it('400 for a malformed base or lead, before any lookup', () => {
  const { forecasts, asked } = reader();
  const lookup = forecastFrames(forecasts);
  for (const id of [
    [LISTED, '010'],
    [LISTED, '0'],
    [LISTED, '1441'],
    [LISTED, '-10'],
    ['20261128', '10'],
    ['202611281260', '10'],
  ])
    expect(() => lookup.withMeta(id, (m) => m)).toThrow(BadRequestError);
  expect(asked).toEqual([]);
});

it('answers a readable frame synchronously and names its public path', () => {
  const lookup = forecastFrames(reader().forecasts);
  const found = lookup.withMeta([LISTED, '20'], (m) => m);
  expect(found).toEqual(meta(`forecast-${LISTED}-020`));
  expect(lookup.path(found as ArchiveMeta)).toBe(`/forecasts/${LISTED}/20`);
});

it('asks the shared manifest for a newer base; 404 when it lacks it too', async () => {
  const newer = '202611281202';
  const { forecasts, asked } = reader({ [`forecast-${newer}-010`]: meta(`forecast-${newer}-010`) });
  const lookup = forecastFrames(forecasts);
  await expect(lookup.withMeta([newer, '10'], (m) => m)).resolves.toEqual(
    meta(`forecast-${newer}-010`),
  );
  await expect(lookup.withMeta([newer, '20'], (m) => m)).rejects.toBeInstanceOf(NotFoundError);
  expect(asked).toEqual([`forecast-${newer}-010`, `forecast-${newer}-020`]);
});

it('the listed base and older ones are a synchronous 404', () => {
  const { forecasts, asked } = reader();
  const lookup = forecastFrames(forecasts);
  expect(() => lookup.withMeta([LISTED, '30'], (m) => m)).toThrow(NotFoundError);
  expect(() => lookup.withMeta(['202611281158', '10'], (m) => m)).toThrow(NotFoundError);
  expect(asked).toEqual([]);
});
