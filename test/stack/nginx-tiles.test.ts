/**
 * z/x/y tiles and TileJSON through the shipped nginx config in front of two replicas: the
 * shared conformance suite at the edge (TileJSON must name nginx's address, port included);
 * and the colour schemes and legend through the edge (encodings the replicas negotiate pass
 * through untouched).
 */
import { startEdgeStack, type EdgeStack } from '../harness/edge-stack';
import {
  describeStackConformance,
  seedStackConformance,
  stackConformanceArchives,
} from '../harness/stack-conformance';

jest.setTimeout(60_000);

const archives = stackConformanceArchives();
let edge: EdgeStack;

beforeAll(async () => {
  edge = await startEdgeStack({ replicas: 2 });
  await seedStackConformance(edge.stack, archives);
});
afterAll(() => edge?.stop());

describeStackConformance('nginx in front of two replicas', () => [edge.edgeUrl], archives);
