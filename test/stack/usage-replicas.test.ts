/**
 * Per-key usage across two replica processes behind the shipped nginx, counted in each
 * replica and flushed to Redis every second: after a known mix (200, 206, 304, 400, 401 of a
 * known key, 404, 416, 429, HEAD, abandoned downloads), `npm run keys -- usage --json` (the
 * built CLI) matches what the client saw, exactly for requests and within the documented bound
 * for abandoned downloads; the same holds after a replica's SIGTERM (it flushes on the way out)
 * and a restart in the middle of the hour; a SIGKILL loses at most what the killed replica
 * answered in its last flush interval, and never counts anything twice.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { UsageReport } from '../../src/domain/usage-report';
import { bigArchive } from '../fixtures/archives';
import { edgeRequest, spawnReplica } from '../harness/edge-stack';
import {
  FAULT_KEYS,
  FAULT_REPLICA_ENV,
  faultAuth,
  metric,
  reportFault,
  startFaultStack,
  type FaultStack,
} from '../harness/fault-stack';
import {
  sendUsageMix,
  UsageLedger,
  reportMismatches,
  type UsageMixPlan,
} from '../harness/usage-ledger';
import { stackAuth } from '../harness/production-stack';
import { waitFor } from '../harness/wait';

jest.setTimeout(180_000);

const KEYS_ENTRY = path.resolve(__dirname, '../../dist/bin/keys.js');
const FLUSH_S = 1;
const REPLICA_ENV = { RADAR_USAGE_FLUSH_S: String(FLUSH_S) };
const BIG = '202401011201';
const MAIN = 'fault-load';
const LIMITED = 'fault-limitedB';
/** Keys the harness itself uses (replica start-up checks): not part of the ledger. */
const HARNESS_KEYS = new Set(['good']);

let fault: FaultStack;
let plan: UsageMixPlan;
const ledger = new UsageLedger();

beforeAll(async () => {
  fault = await startFaultStack({ replicaEnv: REPLICA_ENV });
  await fault.stack.s3.put(`${BIG}.pmtiles`, bigArchive(BIG));
  const newest = fault.frames[0]!;
  let size = 0;
  for (const r of fault.replicas)
    await waitFor(
      async () => {
        const head = await edgeRequest(r.url, `/tiles/${BIG}.pmtiles`, {
          method: 'HEAD',
          headers: stackAuth(), // the harness's key, outside the ledger
        });
        const frame = await edgeRequest(r.url, `/tiles/${newest}.pmtiles`, {
          method: 'HEAD',
          headers: stackAuth(), // the harness's key, outside the ledger
        });
        size = Number(frame.headers['content-length']);
        return head.status === 200 && frame.status === 200;
      },
      20_000,
      'archives listed',
      100,
    );
  plan = {
    baseUrl: fault.nginx.url,
    main: { id: MAIN, headers: faultAuth() },
    limited: { id: LIMITED, headers: faultAuth(FAULT_KEYS.limitedB) },
    archive: { timestamp: newest, size },
    big: BIG,
  };
});
afterAll(() => fault?.stop());

/** `npm run keys -- usage --json` against the stack's Redis (keys and usage live there). */
function cliReport(): UsageReport {
  const out = execFileSync(process.execPath, [KEYS_ENTRY, 'usage', '--json', '--since', '2h'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', REDIS_URL: fault.stack.redis.url },
  });
  return JSON.parse(out) as UsageReport;
}

/** `/usage` of the first live replica's admin listener (fleet-wide: it reads Redis). */
async function adminReport(): Promise<UsageReport> {
  const live = fault.replicas.find((r) => r.process.child.exitCode === null)!;
  const res = await edgeRequest(`http://127.0.0.1:${live.adminPort}`, '/usage?since=2h', {
    timeoutMs: 5000,
  });
  expect(res.status).toBe(200);
  return res.json<UsageReport>();
}

const ledgerTotal = () =>
  [...ledger.keys.keys()].reduce((sum, key) => sum + ledger.requests(key), 0);
const reportTotal = (report: UsageReport) =>
  report.keys.filter((k) => !HARNESS_KEYS.has(k.key)).reduce((sum, k) => sum + k.requests, 0);

/** Waits until the store holds as many requests as the ledger (or `expected`). */
async function settled(expected = ledgerTotal()): Promise<number> {
  let last: UsageReport | undefined;
  try {
    return await waitFor(
      async () => reportTotal((last = await adminReport())) === expected,
      FLUSH_S * 1000 + 15_000,
      `usage flushed (${expected} requests)`,
      200,
    );
  } catch (err) {
    const seen = last ? `${reportTotal(last)}: ${mismatches(last).join('; ')}` : 'no report';
    throw new Error(`${(err as Error).message}; last report ${seen}`);
  }
}

/** How the report differs from the ledger (the harness's own key aside). */
const mismatches = (report: UsageReport) => reportMismatches(ledger, report, HARNESS_KEYS);

it('a mix across two replicas behind nginx: the CLI report matches the client exactly', async () => {
  await sendUsageMix(plan, ledger);
  await sendUsageMix(plan, ledger);
  for (const status of [200, 206, 304, 400, 401, 404, 416, 429, 499])
    expect(ledger.statusesSeen()).toContain(status);
  const waited = await settled();
  expect(mismatches(cliReport())).toEqual([]);
  // Both replicas counted and flushed some of it.
  for (const r of fault.replicas)
    expect(
      await metric(r.adminPort, 'radar_usage_flushes_total', { outcome: 'ok' }),
    ).toBeGreaterThan(0);
  await reportFault('usage-mix', { requests: ledgerTotal(), flushedWithinMs: waited });
});

it('a SIGTERM flushes what the replica held; a restart in the middle of the hour adds on', async () => {
  await sendUsageMix(plan, ledger);
  const [first] = fault.replicas;
  // Between requests: nothing in flight, so every answer is the client's and counted once.
  expect(await first!.process.stop('SIGTERM')).toBe(0);
  await sendUsageMix(plan, ledger); // nginx sends it all to the other replica
  await settled();
  expect(mismatches(cliReport())).toEqual([]);

  fault.replicas[0] = await spawnReplica(
    fault.stack,
    { ...FAULT_REPLICA_ENV, ...REPLICA_ENV },
    first!,
  );
  await sendUsageMix(plan, ledger);
  await sendUsageMix(plan, ledger);
  await settled();
  expect(mismatches(cliReport())).toEqual([]);
  await reportFault('usage-sigterm-restart', { requests: ledgerTotal(), mismatches: 0 });
});

it('a SIGKILL loses at most what the killed replica answered in its last flush interval', async () => {
  await settled();
  const before = (await adminReport()).keys.find((k) => k.key === MAIN)!.requests;
  const victim = fault.replicas[1]!;
  const answeredAt: number[] = [];
  // Spread over about four flush intervals, so the older part must have been flushed already.
  for (let i = 0; i < 80; i++) {
    const res = await edgeRequest(victim.url, '/status.json', {
      headers: faultAuth(),
      timeoutMs: 5000,
    });
    ledger.answered(MAIN, res);
    answeredAt.push(Date.now());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await victim.process.stop('SIGKILL');
  const killedAt = Date.now();
  // The other replica keeps flushing; nothing of the killed one arrives any more.
  await new Promise((resolve) => setTimeout(resolve, 3 * FLUSH_S * 1000));
  const counted = (await adminReport()).keys.find((k) => k.key === MAIN)!.requests;
  const lost = ledger.requests(MAIN) - counted;
  // One flush interval, plus 2 s for a late timer and the flush's round trip on a busy machine
  // (the 80 requests take over 4 s, so the bound still excludes the older ones).
  const windowMs = FLUSH_S * 1000 + 2000;
  const inLastInterval = answeredAt.filter((t) => t > killedAt - windowMs).length;
  await reportFault('usage-sigkill', {
    sentToVictim: answeredAt.length,
    lost,
    answeredInLastIntervalPlusSlack: inLastInterval,
    flushS: FLUSH_S,
  });
  expect(counted).toBeGreaterThanOrEqual(before); // nothing flushed before is lost
  expect(lost).toBeGreaterThanOrEqual(0); // never counted twice
  expect(lost).toBeLessThanOrEqual(inLastInterval);
  // The bound says something: part of what the victim answered was older than the window.
  expect(inLastInterval).toBeLessThan(answeredAt.length);
});
