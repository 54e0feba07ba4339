/**
 * The tile and colour-scheme conformance suites on a real production stack (keys in Redis,
 * archives in S3): the archives they read, seeding them with the tile test keys, and the suites
 * registered against the addresses a test file chooses (the replicas, or nginx before them):
 * the tile suite for an observed frame and for a forecast frame.
 */
import { schemeArchive } from '../fixtures/palette-tiles';
import { request } from './http-client';
import { stackAuth, type ProductionStack } from './production-stack';
import { describeSchemeConformance } from './scheme-conformance';
import { forecastFileName, forecastMetadataOf } from './forecast-archives';
import {
  describeTileConformance,
  forecastUrls,
  sparseArchive,
  sparseForecastArchive,
} from './tile-conformance';
import { addTileTestKeys, TILE_TEST_KEYS } from './tile-test-keys';
import { recentTimestamp } from './timestamps';
import { waitFor } from './wait';

export interface StackConformanceArchives {
  /** The sparse archive the tile suite reads. */
  readonly timestamp: string;
  readonly archive: Buffer;
  /** Real palette PNG tiles, for the colour schemes. */
  readonly schemeTimestamp: string;
  /** The sparse archive again as a forecast frame (base `timestamp`, lead 30). */
  readonly forecast: { readonly base: string; readonly lead: number };
  readonly forecastArchive: Buffer;
}

/** The suites' archives, at recent timestamps so that retention keeps them. */
export function stackConformanceArchives(): StackConformanceArchives {
  const timestamp = recentTimestamp(1);
  const forecast = { base: timestamp, lead: 30 };
  return {
    timestamp,
    archive: sparseArchive(timestamp),
    schemeTimestamp: recentTimestamp(2),
    forecast,
    forecastArchive: sparseForecastArchive(forecast),
  };
}

/** Adds the tile test keys, uploads both archives and waits until every replica lists them. */
export async function seedStackConformance(
  stack: ProductionStack,
  { timestamp, archive, schemeTimestamp, forecast, forecastArchive }: StackConformanceArchives,
): Promise<void> {
  await addTileTestKeys(stack.client, stack.baseUrls);
  await stack.s3.put(`${timestamp}.pmtiles`, archive);
  await stack.s3.put(`${schemeTimestamp}.pmtiles`, schemeArchive(schemeTimestamp));
  await stack.s3.put(forecastFileName(forecast), forecastArchive);
  // Palette tiles as a forecast frame of an older base: readable within its grace.
  const schemeForecast = { base: schemeTimestamp, lead: forecast.lead };
  await stack.s3.put(
    forecastFileName(schemeForecast),
    schemeArchive(schemeTimestamp, false, forecastMetadataOf(schemeForecast)),
  );
  const forecastJson = `/forecasts/${forecast.base}/${forecast.lead}.json`;
  const ok = async (url: string, path: string) =>
    (await request(url, path, { headers: stackAuth() })).status === 200;
  for (const url of stack.baseUrls) {
    await waitFor(
      async () =>
        (await ok(url, `/tiles/${timestamp}.json`)) &&
        (await ok(url, `/tiles/${schemeTimestamp}.json`)) &&
        (await ok(url, forecastJson)) &&
        (await ok(url, `/forecasts/${schemeTimestamp}/${forecast.lead}.json`)),
      15_000,
      `${timestamp} and ${schemeTimestamp} listed on ${url}`,
      50,
    );
  }
}

/** Registers both suites as `name`, against `baseUrls()` (read once the stack runs). */
export function describeStackConformance(
  name: string,
  baseUrls: () => string[],
  { timestamp, archive, schemeTimestamp, forecast, forecastArchive }: StackConformanceArchives,
): void {
  describeTileConformance(name, () => ({
    baseUrls: baseUrls(),
    timestamp,
    archive,
    auth: stackAuth(),
    forbiddenAuth: stackAuth(TILE_TEST_KEYS.unbound.key),
    limitedAuth: stackAuth(TILE_TEST_KEYS.limited.key),
    limitedLimit: TILE_TEST_KEYS.limited.limit,
  }));
  describeTileConformance(`${name}, a forecast frame`, () => ({
    baseUrls: baseUrls(),
    timestamp,
    archive: forecastArchive,
    auth: stackAuth(),
    forbiddenAuth: stackAuth(TILE_TEST_KEYS.unbound.key),
    limitedAuth: stackAuth(TILE_TEST_KEYS.limitedForecast.key),
    limitedLimit: TILE_TEST_KEYS.limitedForecast.limit,
    urls: forecastUrls(forecast),
  }));
  describeSchemeConformance(name, () => ({
    baseUrls: baseUrls(),
    timestamp: schemeTimestamp,
    auth: stackAuth(),
  }));
  describeSchemeConformance(`${name}, a forecast frame`, () => ({
    baseUrls: baseUrls(),
    timestamp: schemeTimestamp,
    framePath: `/forecasts/${schemeTimestamp}/${forecast.lead}`,
    auth: stackAuth(),
  }));
}
