/**
 * One bad object or junk in Redis stays a fact about that object (docs/data-isolation.md),
 * against a real Redis, a real S3 endpoint, the production ingest worker and a replica on a
 * real socket:
 * - an object the store lists but will not return (s3rver trims a trailing space from the
 *   listed name, so reading the listed name answers NoSuchKey) is counted by reason and never
 *   stops publishing or retention of the others;
 * - a published object replaced in the bucket is re-validated: new valid bytes are republished
 *   with their new ETag and size (replicas follow), invalid ones are withdrawn;
 * - junk written into the Redis index (a far-future member, an ETag with CR/LF, a negative
 *   size, a member that is no timestamp) never reaches a response, is counted, and the next
 *   ingest pass repairs it.
 */
import { archiveKey, CATALOG_VERSION_KEY, TIMESTAMPS_KEY } from '../../src/adapters/redis/keys';
import { parseTimestamp } from '../../src/domain/timestamps';
import { buildIngest, type RunningIngest } from '../../src/wiring/ingest';
import { createSilentLogger } from '../../src/logger';
import { buildArchive } from '../fixtures/archives';
import { sample, scrape } from '../harness/fault-stack';
import { request, type RawResponse } from '../harness/http-client';
import { startProductionStack, stackAuth, type ProductionStack } from '../harness/production-stack';
import { waitFor } from '../harness/wait';
import { recentTimestamps } from '../harness/timestamps';

jest.setTimeout(90_000);

let stack: ProductionStack;
let replicaUrl: string;
const extraIngest: RunningIngest[] = [];

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 1, env: { RADAR_RETENTION_S: '3600' } });
  replicaUrl = stack.baseUrls[0]!;
});
afterAll(async () => {
  for (const ingest of extraIngest) await ingest.shutdown();
  await stack?.stop();
});

async function status(): Promise<{ latest: string; timestamps: string[] } | undefined> {
  const res = await request(replicaUrl, '/status.json', { headers: stackAuth() });
  return res.status === 200 ? res.json() : undefined;
}
const listed = async (ts: string) => (await status())?.timestamps.includes(ts) ?? false;
const archive = (ts: string): Promise<RawResponse> =>
  request(replicaUrl, `/tiles/${ts}.pmtiles`, { headers: stackAuth(), timeoutMs: 5000 });
const ingestMetric = async (name: string, labels: Record<string, string> = {}) =>
  sample(await scrape(stack.ingest.adminPort), name, labels) ?? 0;

it('an object listed but unreadable is counted by reason and blocks neither publishing nor retention', async () => {
  const [unreadableTs, validTs] = recentTimestamps(2, 20) as [string, string];
  // Published two hours ago (retention is one hour): this pass must remove it.
  const expired = recentTimestamps(1, 60)[0]!;
  await stack.client.hset(
    archiveKey(expired),
    'size',
    '5000',
    'etag',
    '"0123456789abcdef0123456789abcdef"',
    'lastModified',
    String(Date.now()),
  );
  await stack.client.zadd(TIMESTAMPS_KEY, parseTimestamp(expired)! / 1000, expired);
  const before = await ingestMetric('radar_ingest_read_failures_total', { reason: 'not-found' });

  // Newest first: the unreadable object is the first one the pass reads.
  await stack.s3.put(`${unreadableTs}.pmtiles `, buildArchive(unreadableTs, 1));
  await stack.s3.put(`${validTs}.pmtiles`, buildArchive(validTs, 1));

  await waitFor(() => listed(validTs), 15_000, 'valid archive listed', 50);
  await waitFor(
    async () => !(await stack.client.zrange(TIMESTAMPS_KEY, 0, -1)).includes(expired),
    15_000,
    'expired timestamp pruned',
    50,
  );
  await waitFor(
    async () =>
      (await ingestMetric('radar_ingest_read_failures_total', { reason: 'not-found' })) > before,
    15_000,
    'read failure counted',
    50,
  );
  expect(await listed(unreadableTs)).toBe(false);
  // The worker keeps completing passes.
  expect(await ingestMetric('radar_ingest_last_success_age_seconds')).toBeLessThan(10);
});

it('a published object replaced in the bucket is republished with its new metadata, or withdrawn when invalid', async () => {
  const ts = recentTimestamps(1, 25)[0]!;
  const first = buildArchive(ts, 3);
  await stack.s3.put(`${ts}.pmtiles`, first);
  await waitFor(() => listed(ts), 15_000, 'first version listed', 50);
  const firstRes = await archive(ts);
  expect(firstRes.status).toBe(200);
  expect(firstRes.body.equals(first)).toBe(true);

  const second = buildArchive(ts, 1);
  expect(second.length).not.toBe(first.length);
  await stack.s3.put(`${ts}.pmtiles`, second);
  const republishedMs = await waitFor(
    async () => {
      const res = await archive(ts);
      return res.status === 200 && res.body.equals(second);
    },
    15_000,
    'second version served',
    50,
  );
  const secondRes = await archive(ts);
  expect(secondRes.headers['content-length']).toBe(String(second.length));
  expect(secondRes.headers.etag).not.toBe(firstRes.headers.etag);
  expect(await ingestMetric('radar_ingest_republished_total')).toBeGreaterThanOrEqual(1);

  const garbage = Buffer.alloc(30_000, 0x42);
  await stack.s3.put(`${ts}.pmtiles`, garbage);
  await waitFor(async () => !(await listed(ts)), 15_000, 'invalid version withdrawn', 50);
  expect((await archive(ts)).status).toBe(404);
  expect(await ingestMetric('radar_ingest_unpublished_total', { reason: 'replaced-invalid' })).toBe(
    1,
  );
  expect(await ingestMetric('radar_ingest_rejected_total', { reason: 'bad-magic' })).toBe(1);
  console.info(`[ingest-isolation] replaced object served anew after ${republishedMs} ms`);
});

it('junk in the Redis index never reaches a response and the next ingest pass repairs it', async () => {
  const [crlfTs, negativeTs] = recentTimestamps(2, 12) as [string, string];
  for (const ts of [crlfTs, negativeTs]) await stack.s3.put(`${ts}.pmtiles`, buildArchive(ts, 1));
  await waitFor(
    async () => (await listed(crlfTs)) && (await listed(negativeTs)),
    15_000,
    'both listed',
    50,
  );
  const good = await archive(crlfTs);

  // Ingest stops, so what the replica does with the junk is observable before any repair.
  await stack.ingest.shutdown();
  const future = '999912312359';
  await stack.client.hset(
    archiveKey(future),
    'size',
    '5000',
    'etag',
    '"0123456789abcdef0123456789abcdef"',
    'lastModified',
    String(Date.now()),
  );
  await stack.client.zadd(TIMESTAMPS_KEY, parseTimestamp(future)! / 1000, future);
  await stack.client.zadd(TIMESTAMPS_KEY, Math.floor(Date.now() / 1000), 'latest');
  await stack.client.hset(archiveKey(crlfTs), 'etag', '"abc"\r\nX-Injected: yes');
  await stack.client.hset(archiveKey(negativeTs), 'size', '-5');
  // Moved as a writer that bumps the version would (a buggy tool); junk written without it is
  // read at the replicas' periodic full load instead, and validated the same way.
  await stack.client.incr(CATALOG_VERSION_KEY);

  const replicaMetric = async (reason: string) =>
    sample(await scrape(stack.replicas[0]!.adminPort), 'radar_catalog_entries_refused_total', {
      reason,
    }) ?? 0;
  await waitFor(
    async () =>
      (await replicaMetric('future-timestamp')) >= 1 &&
      (await replicaMetric('bad-timestamp')) >= 1 &&
      (await replicaMetric('bad-etag')) >= 1 &&
      (await replicaMetric('bad-size')) >= 1,
    15_000,
    'junk refused and counted by the replica',
    50,
  );
  const body = await status();
  expect(body?.latest).not.toBe(future);
  expect(body?.timestamps).not.toContain(future);
  expect(body?.timestamps).not.toContain('latest');
  const crlf = await archive(crlfTs);
  expect(crlf.status).toBe(404); // unlisted until repaired: never a 500, never the header
  expect(crlf.headers['x-injected']).toBeUndefined();
  expect((await archive(negativeTs)).status).toBe(404);

  const ingest = await buildIngest(stack.config(), { logger: createSilentLogger() });
  extraIngest.push(ingest);
  const repairedMs = await waitFor(
    async () => {
      const members = await stack.client.zrange(TIMESTAMPS_KEY, 0, -1);
      return (
        !members.includes(future) &&
        !members.includes('latest') &&
        (await listed(crlfTs)) &&
        (await listed(negativeTs))
      );
    },
    15_000,
    'index repaired by the next pass',
    50,
  );
  const repaired = await archive(crlfTs);
  expect(repaired.status).toBe(200);
  expect(repaired.headers.etag).toBe(good.headers.etag);
  expect((await archive(negativeTs)).status).toBe(200);
  const junk = sample(await scrape(ingest.adminPort), 'radar_ingest_unpublished_total', {
    reason: 'catalog-junk',
  });
  expect(junk).toBe(2);
  console.info(`[ingest-isolation] index repaired ${repairedMs} ms after ingest restarted`);
});
