/**
 * Archive structure checks on the production shape (real Redis and S3, two replicas, the ingest
 * worker): ingest reads the metadata past the first 16 KiB with a ranged GET and refuses an
 * archive with a corrupt root directory; a published archive with a corrupt leaf directory
 * answers 503 (not 500) on the replica that finds it, is reported through Redis, and the ingest
 * leader re-validates and withdraws it from every replica. A valid archive reported by mistake
 * stays published.
 */
import { createHash } from 'node:crypto';
import { REVALIDATE_KEY } from '../../src/adapters/redis/keys';
import { decodeHeader } from '../../src/pmtiles/header';
import { archiveOf, pyramid } from '../fixtures/archives';
import { leafArchive, withCorruptFirstLeaf, withCorruptRoot } from '../fixtures/corrupt-archives';
import { request } from '../harness/http-client';
import { stackAuth, startProductionStack, type ProductionStack } from '../harness/production-stack';
import { recentTimestamps } from '../harness/timestamps';
import { waitFor } from '../harness/wait';

jest.setTimeout(90_000);

let stack: ProductionStack;
const [valid, bigMetadata, corruptRoot, corruptLeaf] = recentTimestamps(4);

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 2 });
});
afterAll(() => stack?.stop());

async function ingestMetric(name: string, reason: string): Promise<number> {
  const res = await request(`http://127.0.0.1:${stack.ingest.adminPort}`, '/metrics');
  const line = res.body
    .toString()
    .split('\n')
    .find((l) => l.startsWith(`${name}{reason="${reason}"} `));
  return line === undefined ? Number.NaN : Number(line.split(' ').pop());
}

const headStatus = async (base: string, ts: string) =>
  (await request(base, `/tiles/${ts}.pmtiles`, { method: 'HEAD', headers: stackAuth() })).status;

it('ingest reads metadata past 16 KiB and refuses a corrupt root; a corrupt leaf is 503, then withdrawn everywhere', async () => {
  await stack.publish(valid!, leafArchive(valid!));
  // Metadata of about 60 KB that gzip cannot shrink: it ends far past the first 16 KiB.
  const noise = Array.from({ length: 700 }, (_, i) =>
    createHash('sha512').update(String(i)).digest('base64'),
  ).join('');
  const big = archiveOf(pyramid(3), 3, { name: 'big', noise });
  const h = decodeHeader(big);
  expect(h.jsonMetadataOffset + h.jsonMetadataLength).toBeGreaterThan(16384);
  await stack.publish(bigMetadata!, big);

  await stack.s3.put(`${corruptRoot}.pmtiles`, withCorruptRoot(leafArchive(corruptRoot!)));
  await waitFor(
    async () => (await ingestMetric('radar_ingest_rejected_total', 'bad-root-directory')) === 1,
    15_000,
    'corrupt root rejected',
    100,
  );
  for (const base of stack.baseUrls) expect(await headStatus(base, corruptRoot!)).toBe(404);

  await stack.publish(corruptLeaf!, withCorruptFirstLeaf(leafArchive(corruptLeaf!)));
  const [first, second] = stack.baseUrls as [string, string];
  const intact = await request(first, `/tiles/${corruptLeaf}/7/10/20.png`, {
    headers: stackAuth(),
  });
  expect(intact.status).toBe(200);
  const refused = await request(first, `/tiles/${corruptLeaf}/0/0/0.png`, {
    headers: stackAuth(),
  });
  expect(refused.status).toBe(503);
  expect(refused.headers['retry-after']).toBe('10');
  expect(refused.json()).toEqual({ error: { code: 503, message: 'Service Unavailable' } });

  // Reported through Redis, taken by the ingest leader, withdrawn from both replicas.
  await waitFor(
    async () =>
      (await headStatus(first, corruptLeaf!)) === 404 &&
      (await headStatus(second, corruptLeaf!)) === 404,
    20_000,
    'corrupt leaf archive withdrawn from both replicas',
    100,
  );
  expect(await ingestMetric('radar_ingest_unpublished_total', 'failed-revalidation')).toBe(1);
  expect(await ingestMetric('radar_ingest_rejected_total', 'bad-leaf-directory')).toBe(1);
  expect(await stack.client.scard(REVALIDATE_KEY)).toBe(0);

  // A valid archive reported (by hand here) is re-validated and stays.
  await stack.client.sadd(REVALIDATE_KEY, valid!);
  await waitFor(
    async () => (await stack.client.scard(REVALIDATE_KEY)) === 0,
    15_000,
    'report taken',
    100,
  );
  await new Promise((r) => setTimeout(r, 1500)); // the pass that took it has finished
  for (const base of stack.baseUrls) {
    expect(await headStatus(base, valid!)).toBe(200);
    expect(await headStatus(base, bigMetadata!)).toBe(200);
  }
  expect(await ingestMetric('radar_ingest_unpublished_total', 'failed-revalidation')).toBe(1);
});
