/**
 * z/x/y tiles and TileJSON through two replicas sharing Redis (catalog, keys, rate limits) and
 * an S3 endpoint: the shared conformance suite, requests spread over both replicas; and the
 * colour schemes and legend, compared across both replicas.
 */
import { startProductionStack, type ProductionStack } from '../harness/production-stack';
import {
  describeStackConformance,
  seedStackConformance,
  stackConformanceArchives,
} from '../harness/stack-conformance';

jest.setTimeout(60_000);

const archives = stackConformanceArchives();
let stack: ProductionStack;

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 2 });
  await seedStackConformance(stack, archives);
});
afterAll(() => stack?.stop());

describeStackConformance('two replicas with Redis', () => stack.baseUrls, archives);
