/**
 * z/x/y tiles and TileJSON through two replicas sharing Redis (catalog, keys, rate limits) and
 * an S3 endpoint: the shared conformance suite, requests spread over both replicas; and the
 * colour schemes and legend, compared across both replicas.
 */
import { request } from '../harness/http-client';
import { startProductionStack, stackAuth, type ProductionStack } from '../harness/production-stack';
import { waitFor } from '../harness/wait';
import { describeTileConformance, sparseArchive } from '../harness/tile-conformance';
import { addTileTestKeys, TILE_TEST_KEYS } from '../harness/tile-test-keys';
import { describeSchemeConformance } from '../harness/scheme-conformance';
import { recentTimestamp } from '../harness/timestamps';
import { schemeArchive } from '../fixtures/palette-tiles';

jest.setTimeout(60_000);

const TS = recentTimestamp(1);
const archive = sparseArchive(TS);
/** Real palette PNG tiles, for the colour schemes. */
const SCHEME_TS = recentTimestamp(2);
let stack: ProductionStack;

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 2 });
  await addTileTestKeys(stack.client, stack.baseUrls);
  await stack.s3.put(`${TS}.pmtiles`, archive);
  await stack.s3.put(`${SCHEME_TS}.pmtiles`, schemeArchive(SCHEME_TS));
  for (const url of stack.baseUrls) {
    await waitFor(
      async () =>
        (await request(url, `/tiles/${TS}.json`, { headers: stackAuth() })).status === 200 &&
        (await request(url, `/tiles/${SCHEME_TS}.json`, { headers: stackAuth() })).status === 200,
      15_000,
      `${TS} and ${SCHEME_TS} listed on ${url}`,
      50,
    );
  }
});
afterAll(() => stack?.stop());

describeTileConformance('two replicas with Redis', () => ({
  baseUrls: stack.baseUrls,
  timestamp: TS,
  archive,
  auth: stackAuth(),
  forbiddenAuth: stackAuth(TILE_TEST_KEYS.unbound.key),
  limitedAuth: stackAuth(TILE_TEST_KEYS.limited.key),
  limitedLimit: TILE_TEST_KEYS.limited.limit,
}));

describeSchemeConformance('two replicas with Redis', () => ({
  baseUrls: stack.baseUrls,
  timestamp: SCHEME_TS,
  auth: stackAuth(),
}));
