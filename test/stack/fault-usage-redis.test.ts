/**
 * Per-key usage through 20 s Redis outages, on the fault stack (two replica processes behind
 * nginx, flushing every second). While Redis is frozen (SIGSTOP: connections stay open, every
 * flush times out, and Redis runs the queued flushes once it thaws) and while it is down
 * (killed, then restarted empty), the replicas keep serving, keep counting in memory and keep
 * retrying; once Redis answers again the counts arrive, each batch exactly once: the report
 * matches what the client saw.
 */
import type { UsageReport } from '../../src/domain/usage-report';
import { edgeRequest } from '../harness/edge-stack';
import {
  FAULT_KEYS,
  faultAuth,
  metric,
  reportFault,
  startFaultStack,
  type FaultStack,
} from '../harness/fault-stack';
import { stackAuth } from '../harness/production-stack';
import {
  sendUsageMix,
  UsageLedger,
  reportMismatches,
  type UsageMixPlan,
} from '../harness/usage-ledger';
import { waitFor } from '../harness/wait';

jest.setTimeout(180_000);

const FLUSH_S = 1;
const OUTAGE_MS = 20_000;
const HARNESS_KEYS = new Set(['good']);

let fault: FaultStack;
let plan: UsageMixPlan;

beforeAll(async () => {
  fault = await startFaultStack({ replicaEnv: { RADAR_USAGE_FLUSH_S: String(FLUSH_S) } });
  const newest = fault.frames[0]!;
  const head = await edgeRequest(fault.replicas[0]!.url, `/tiles/${newest}.pmtiles`, {
    method: 'HEAD',
    headers: stackAuth(),
  });
  plan = {
    baseUrl: fault.nginx.url,
    main: { id: 'fault-load', headers: faultAuth() },
    limited: { id: 'fault-limitedC', headers: faultAuth(FAULT_KEYS.limitedC) },
    archive: { timestamp: newest, size: Number(head.headers['content-length']) },
  };
});
afterAll(() => fault?.stop());

async function adminReport(): Promise<UsageReport> {
  const res = await edgeRequest(
    `http://127.0.0.1:${fault.replicas[0]!.adminPort}`,
    '/usage?since=2h',
    { timeoutMs: 5000 },
  );
  expect(res.status).toBe(200);
  return res.json<UsageReport>();
}

/** Waits until the report's requests of the ledger's keys reach the ledger's, then compares. */
async function expectSettled(ledger: UsageLedger, within: number): Promise<number> {
  const total = [...ledger.keys.keys()].reduce((sum, key) => sum + ledger.requests(key), 0);
  let last: UsageReport | undefined;
  const counted = (r: UsageReport) =>
    r.keys.filter((k) => ledger.keys.has(k.key)).reduce((sum, k) => sum + k.requests, 0);
  const waited = await waitFor(
    async () => {
      last = await adminReport().catch(() => undefined);
      return last !== undefined && counted(last) >= total;
    },
    within,
    `usage flushed (${total} requests)`,
    250,
  ).catch((err: Error) => {
    throw new Error(
      `${err.message}; last report: ${last ? reportMismatches(ledger, last, HARNESS_KEYS).join('; ') : 'none'}`,
    );
  });
  expect(reportMismatches(ledger, last!, HARNESS_KEYS)).toEqual([]);
  return waited;
}

/**
 * Sends mix rounds through nginx for `ms`, at most one round (about 12 requests) per 100 ms:
 * below the edge's per-address flood limit (200 requests/s), whose 429s never reach a replica.
 */
async function mixFor(ledger: UsageLedger, ms: number): Promise<number> {
  const until = Date.now() + ms;
  let rounds = 0;
  while (Date.now() < until) {
    const started = Date.now();
    await sendUsageMix({ ...plan, limitedRequests: 2 }, ledger);
    rounds++;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - started))));
  }
  return rounds;
}

function failedFlushes(): Promise<number[]> {
  return Promise.all(
    fault.replicas.map((r) =>
      metric(r.adminPort, 'radar_usage_flushes_total', { outcome: 'failed' }),
    ),
  );
}

it('Redis frozen for 20 s: counts are kept, flushed after, and queued retries count once', async () => {
  const ledger = new UsageLedger();
  await sendUsageMix(plan, ledger);
  await expectSettled(ledger, 15_000);
  const failedBefore = await failedFlushes();
  await fault.stack.redis.pause();
  let rounds: number;
  try {
    rounds = await mixFor(ledger, OUTAGE_MS);
  } finally {
    await fault.stack.redis.resume();
  }
  const failedDuring = (await failedFlushes()).map((n, i) => n - failedBefore[i]!);
  // Every replica tried (and failed) several times while Redis was frozen.
  for (const n of failedDuring) expect(n).toBeGreaterThanOrEqual(5);
  const waited = await expectSettled(ledger, 30_000);
  await reportFault('usage-redis-frozen', {
    outageMs: OUTAGE_MS,
    mixRounds: rounds,
    failedFlushes: failedDuring,
    settledAfterResumeMs: waited,
  });
});

it('Redis down for 20 s and back empty: what was counted meanwhile arrives, exactly', async () => {
  // The counts flushed before the outage are in the old Redis, lost with it (no persistence);
  // what the replicas counted during the outage is theirs and must arrive in the new one.
  const ledger = new UsageLedger();
  await fault.stack.redis.kill();
  let rounds: number;
  try {
    rounds = await mixFor(ledger, OUTAGE_MS);
  } finally {
    await fault.stack.redis.restart();
  }
  const waited = await expectSettled(ledger, 30_000);
  await reportFault('usage-redis-down', {
    outageMs: OUTAGE_MS,
    mixRounds: rounds,
    settledAfterRestartMs: waited,
  });
});
