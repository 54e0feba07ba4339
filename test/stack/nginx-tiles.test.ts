/**
 * z/x/y tiles and TileJSON through the shipped nginx config in front of two replicas: the
 * shared conformance suite at the edge (TileJSON must name nginx's address, port included);
 * and the colour schemes and legend through the edge (encodings the replicas negotiate pass
 * through untouched).
 */
import { startEdgeStack, type EdgeStack } from '../harness/edge-stack';
import { request } from '../harness/http-client';
import { stackAuth } from '../harness/production-stack';
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
let edge: EdgeStack;

beforeAll(async () => {
  edge = await startEdgeStack({ replicas: 2 });
  await addTileTestKeys(edge.stack.client, edge.stack.baseUrls);
  await edge.stack.s3.put(`${TS}.pmtiles`, archive);
  await edge.stack.s3.put(`${SCHEME_TS}.pmtiles`, schemeArchive(SCHEME_TS));
  for (const url of edge.stack.baseUrls) {
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
afterAll(() => edge?.stop());

describeTileConformance('nginx in front of two replicas', () => ({
  baseUrls: [edge.edgeUrl],
  timestamp: TS,
  archive,
  auth: stackAuth(),
  forbiddenAuth: stackAuth(TILE_TEST_KEYS.unbound.key),
  limitedAuth: stackAuth(TILE_TEST_KEYS.limited.key),
  limitedLimit: TILE_TEST_KEYS.limited.limit,
}));

describeSchemeConformance('nginx in front of two replicas', () => ({
  baseUrls: [edge.edgeUrl],
  timestamp: SCHEME_TS,
  auth: stackAuth(),
}));
