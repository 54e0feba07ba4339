/**
 * A replica applies retention itself: with the ingest worker stopped (as in an outage, when
 * nobody prunes the shared index), a timestamp that passes `RADAR_RETENTION_S` leaves the
 * replica's `/status.json` and answers 404 on every route at the moment it expires, while the
 * Redis index still holds it. Real Redis and S3, a replica built by `buildReplica`.
 */
import { TIMESTAMPS_KEY } from '../../src/adapters/redis/keys';
import { formatTimestamp, parseTimestamp } from '../../src/domain/timestamps';
import { buildArchive } from '../fixtures/archives';
import { request } from '../harness/http-client';
import { stackAuth, startProductionStack, type ProductionStack } from '../harness/production-stack';
import { reportFigure, waitFor } from '../harness/wait';

jest.setTimeout(90_000);

const MIN = 60_000;
/** The expiring timestamp passes retention this long after the stack is configured. */
const EXPIRES_IN_MS = 15_000;

let stack: ProductionStack;
let newest: string;
let expiring: string;
let expiresAtMs: number;

beforeAll(async () => {
  const now = Date.now();
  const newestMs = Math.floor(now / MIN) * MIN;
  newest = formatTimestamp(newestMs);
  expiring = formatTimestamp(newestMs - 2 * MIN);
  const retentionS = Math.ceil((now + EXPIRES_IN_MS - parseTimestamp(expiring)!) / 1000);
  expiresAtMs = parseTimestamp(expiring)! + retentionS * 1000;
  stack = await startProductionStack({
    replicas: 1,
    env: { RADAR_RETENTION_S: String(retentionS) },
  });
  await stack.publish(newest, buildArchive(newest, 2));
  await stack.publish(expiring, buildArchive(expiring, 2));
  // Nobody prunes the index from here on.
  await stack.ingest.shutdown();
});
afterAll(() => stack?.stop());

const listed = async (): Promise<string[]> => {
  const res = await request(stack.baseUrls[0]!, '/status.json', { headers: stackAuth() });
  expect(res.status).toBe(200);
  return res.json<{ timestamps: string[] }>().timestamps;
};

it('drops an expired timestamp from status and answers it 404 with ingest stopped', async () => {
  expect(Date.now()).toBeLessThan(expiresAtMs); // the stack started in time to see it listed
  expect(await listed()).toEqual([newest, expiring]);

  await waitFor(
    async () => !(await listed()).includes(expiring),
    expiresAtMs - Date.now() + 10_000,
    `${expiring} dropped from status`,
    50,
  );
  const droppedAfterMs = Date.now() - expiresAtMs;
  reportFigure('expired timestamp left status after its expiry', droppedAfterMs);
  // Not before it expired, and on the replica's own clock rather than a later pass.
  expect(droppedAfterMs).toBeGreaterThanOrEqual(0);

  const base = stack.baseUrls[0]!;
  for (const [method, path] of [
    ['GET', `/tiles/${expiring}.pmtiles`],
    ['HEAD', `/tiles/${expiring}.pmtiles`],
    ['GET', `/tiles/${expiring}/0/0/0.png`],
    ['GET', `/tiles/${expiring}.json`],
  ] as const) {
    const res = await request(base, path, { method, headers: stackAuth() });
    expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
  }
  expect((await request(base, `/tiles/${newest}.pmtiles`, { headers: stackAuth() })).status).toBe(
    200,
  );
  expect(await listed()).toEqual([newest]);
  // The shared index still holds it: the replica decided alone.
  expect(await stack.client.zscore(TIMESTAMPS_KEY, expiring)).not.toBeNull();
});
