/**
 * A dead object store under a flood of archive reads: every uncached read answers 503, the
 * circuit breaker opens after a few failures and fails the rest fast, and the replica's log
 * stays readable: the breaker logs its change of state once, fast-fails write no line each,
 * and the store failures that still reach the error handler are sampled (one full line per
 * kind, then at most one per 10 s with a count). Real Redis, a real replica on a socket, a
 * store endpoint that refuses connections.
 */
import { TIMESTAMPS_KEY } from '../../src/adapters/redis/keys';
import { freePort } from '../../tools/stack/free-port';
import { buildReplica, type Replica } from '../../src/wiring/replica';
import { buildArchive } from '../fixtures/archives';
import { request } from '../harness/http-client';
import { loggedLines } from '../harness/log-lines';
import { startProductionStack, stackAuth, type ProductionStack } from '../harness/production-stack';
import { waitFor } from '../harness/wait';
import { recentTimestamp } from '../harness/timestamps';

jest.setTimeout(90_000);

const TS = recentTimestamp(1);
const FLOOD = 600;
const archive = buildArchive(TS, 5);
let stack: ProductionStack;
let replica: Replica;
const { lines, logger } = loggedLines();

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 0 });
  await stack.s3.put(`${TS}.pmtiles`, archive);
  await waitFor(
    async () => (await stack.client.zscore(TIMESTAMPS_KEY, TS)) !== null,
    15_000,
    'published',
  );
  // The replica reads the catalog from the live Redis but its store endpoint refuses
  // connections: every byte read fails as when the store is down.
  const deadStore = `http://127.0.0.1:${await freePort()}`;
  replica = await buildReplica(
    stack.config({ S3_ENDPOINT: deadStore, LOG_LEVEL: 'info', RADAR_CACHE_MB: '0' }),
    { logger },
  );
  await waitFor(
    async () =>
      (
        await request(`http://127.0.0.1:${replica.port}`, `/tiles/${TS}.pmtiles`, {
          method: 'HEAD',
          headers: stackAuth(),
        })
      ).status === 200,
    15_000,
    'listed on the replica',
  );
});
afterAll(async () => {
  await replica?.shutdown();
  await stack?.stop();
});

it(`a flood of ${FLOOD} reads against a dead store: all 503, a bounded number of log lines`, async () => {
  const base = `http://127.0.0.1:${replica.port}`;
  const before = lines.length;
  const statuses: Record<number, number> = {};
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: 12 }, async () => {
      while (next < FLOOD) {
        const i = next++;
        // Distinct ranges past the header, all inside the archive.
        const offset = 16_384 + ((i * 512) % (archive.length - 16_484));
        const res = await request(base, `/tiles/${TS}.pmtiles`, {
          headers: { ...stackAuth(), Range: `bytes=${offset}-${offset + 99}` },
        });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const flood = lines.slice(before).filter((line) => line.msg !== 'request');
  const failedLines = flood.filter((line) => String(line.msg).startsWith('request failed'));
  console.info(
    `[fast-fail-logging] ${FLOOD} reads in ${seconds.toFixed(1)} s: ${JSON.stringify(statuses)}; ` +
      `${flood.length} log lines besides the access lines (${failedLines.length} "request failed")`,
  );

  expect(statuses).toEqual({ 503: FLOOD });
  expect(replica.probe.reachable()).toBe(false);
  // The breaker opened once and said so once.
  expect(flood.filter((l) => /circuit breaker opened/.test(String(l.msg)))).toHaveLength(1);
  // No line per fast-fail: the store's own failure lines (before the breaker opened, and one
  // per trial after each cool-down) plus one sampled "request failed" per kind and 10 s.
  const trials = Math.ceil(seconds / 5) + 1;
  expect(flood.length).toBeLessThanOrEqual(5 + 2 * trials + 3 * Math.ceil(seconds / 10 + 1));
  expect(failedLines.length).toBeLessThanOrEqual(2 * Math.ceil(seconds / 10 + 1));
  expect(failedLines.every((l) => (l.err as { stack?: string } | undefined)?.stack)).toBe(true);
  // Every request still has its access line with its status.
  const access = lines.slice(before).filter((l) => l.msg === 'request' && l.status === 503);
  expect(access).toHaveLength(FLOOD);
});
