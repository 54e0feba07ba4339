/**
 * Fault matrix, object store (docs/reliability.md): replicas reach the bucket through a TCP fault
 * proxy that first refuses every connection (a store that is down), then accepts and never
 * answers (a store that hangs). Under a bounded map-client load through nginx: archive requests
 * answer 503 with the error record within RADAR_S3_TIMEOUT_MS (set to 1000 here), and at once
 * while the circuit breaker is open; status keeps answering 200 and turns `healthy: false`
 * within 30 s (the store probe runs every 10 s); after the store returns, archives are 206 and
 * `healthy` true again within 30 s, without a restart.
 *
 * The replicas run with RADAR_CACHE_MB=0: the hot block cache would answer the warmed header
 * windows from memory and hide the store path this test is about.
 */
// The store's breaker defaults: the replicas here run with them.
import {
  DEFAULT_BREAKER_COOLDOWN_MS as BREAKER_COOLDOWN_MS,
  DEFAULT_BREAKER_THRESHOLD as BREAKER_THRESHOLD,
} from '../../src/adapters/s3/archive-store';
import type { FaultMode } from '../harness/s3-server';
import { edgeRequest, type SpawnedReplica } from '../harness/edge-stack';
import {
  FAULT_REPLICA_ENV,
  faultAuth,
  metric,
  readyz,
  replicaStatus,
  reportFault,
  startFaultStack,
  type FaultStack,
} from '../harness/fault-stack';
import { loadRunning, startFaultLoad } from '../harness/fault-load';
import { isServed, summarizeLoad, type LoadOutcome } from '../harness/map-client-load';
import { waitFor } from '../harness/wait';

jest.setTimeout(120_000);

const S3_TIMEOUT_MS = Number(FAULT_REPLICA_ENV.RADAR_S3_TIMEOUT_MS);
/**
 * Allowance over the time-to-first-byte limit: wide, because the machine is shared and a slow
 * moment is not a regression; the worst figure is in the fault report (archive503WorstMs).
 */
const LATENCY_MARGIN_MS = 2000;
/** A 503 answered faster than this did not wait on the store: the breaker refused it. */
const FAST_MS = 150;
const UNHEALTHY_BOUND_MS = 30_000;
const RECOVERY_BOUND_MS = 30_000;

let fault: FaultStack;

beforeAll(async () => {
  fault = await startFaultStack({ storeProxy: true, replicaEnv: { RADAR_CACHE_MB: '0' } });
});
afterAll(async () => {
  await fault?.stop();
});

async function healthyFlags(): Promise<Array<boolean | undefined>> {
  return Promise.all(
    fault.replicas.map(async (r) => (await replicaStatus(r).catch(() => undefined))?.body?.healthy),
  );
}

/** A tile-sized range straight from one replica. */
async function tileStatus(replica: SpawnedReplica): Promise<number> {
  const res = await edgeRequest(replica.url, `/tiles/${fault.frames[0]}.pmtiles`, {
    headers: { ...faultAuth(), Range: 'bytes=20000-20699' },
    timeoutMs: 5000,
  }).catch(() => undefined);
  return res?.status ?? 0;
}

async function outage(mode: Exclude<FaultMode, 'pass'>): Promise<void> {
  const proxy = fault.proxy!;
  const load = startFaultLoad(fault, 90_000);
  await loadRunning(load);
  // Precondition: both replicas healthy (a probe slowed by this busy machine can delay it).
  await waitFor(
    async () => (await healthyFlags()).every((h) => h === true),
    25_000,
    'both replicas healthy before the fault',
    100,
  );

  const faultAt = Date.now();
  proxy.setMode(mode);
  const breakerOpenMs = await waitFor(
    async () =>
      (
        await Promise.all(
          fault.replicas.map((r) => metric(r.adminPort, 'radar_object_store_breaker_open')),
        )
      ).every((v) => v === 1),
    UNHEALTHY_BOUND_MS,
    'breaker open on both replicas',
    50,
  );
  const unhealthyMs = await waitFor(
    async () => (await healthyFlags()).every((h) => h === false),
    UNHEALTHY_BOUND_MS,
    'healthy false on both replicas',
    100,
  );
  // Status keeps answering: the flag is false, the list is intact.
  const during = await Promise.all(fault.replicas.map((r) => replicaStatus(r)));
  // Readiness holds during a store outage shared by every replica (docs/behaviour.md):
  // taking them all out of the balancer would take /status.json down too.
  const readyDuring = await Promise.all(fault.replicas.map((r) => readyz(r.adminPort)));

  const restoredAt = Date.now();
  proxy.setMode('pass');
  const archivesBackMs = await waitFor(
    async () => (await Promise.all(fault.replicas.map(tileStatus))).every((s) => s === 206),
    RECOVERY_BOUND_MS,
    'archives 206 again on both replicas',
    100,
  );
  const healthyBackMs = await waitFor(
    async () => (await healthyFlags()).every((h) => h === true),
    RECOVERY_BOUND_MS,
    'healthy true again on both replicas',
    100,
  );
  const recoveredAt = Date.now();
  await waitFor(
    () => load.outcomes.filter((o) => o.start >= recoveredAt).length >= 20,
    10_000,
    'load after recovery',
    20,
  );
  const outcomes = await load.stop();

  const inFault = outcomes.filter((o) => o.start >= faultAt && o.start + o.ms <= restoredAt);
  const archives = (list: readonly LoadOutcome[]) => list.filter((o) => o.kind !== 'status');
  const archive503 = archives(inFault).filter((o) => o.status === 503);
  const slow503 = archive503.filter((o) => o.ms >= FAST_MS);
  // Requests that waited on the store: per replica, the failures that open the breaker and the
  // requests already past the breaker when it opened (one per client). Trials are the
  // breaker's own probes: no client request waits on the store once it is open.
  const slowBound = 2 * (BREAKER_THRESHOLD + 4);
  const afterRecovery = outcomes.filter((o) => o.start >= recoveredAt);
  const faultSummary = summarizeLoad(inFault);
  const statusInFault = inFault.filter((o) => o.kind === 'status');

  await reportFault(`object-store-${mode}`, {
    s3TimeoutMs: S3_TIMEOUT_MS,
    marginMs: LATENCY_MARGIN_MS,
    faultMs: restoredAt - faultAt,
    ...summarizeLoad(outcomes),
    duringFault: {
      requests: faultSummary.requests,
      byStatus: faultSummary.byStatus,
      worstMs: faultSummary.worstMs,
      archive503: archive503.length,
      archive503WaitedOnStore: slow503.length,
      archive503WorstMs: Math.max(0, ...archive503.map((o) => o.ms)),
      archive503MedianMs:
        archive503.map((o) => o.ms).sort((x, y) => x - y)[archive503.length >> 1] ?? null,
      statusWorstMs: Math.max(0, ...statusInFault.map((o) => o.ms)),
    },
    breakerOpenOnBothMs: breakerOpenMs,
    healthyFalseOnBothMs: unhealthyMs,
    readyzDuringFault: readyDuring,
    archives206AgainMs: archivesBackMs,
    healthyTrueAgainMs: healthyBackMs,
  });

  expect(archive503.length).toBeGreaterThan(0);
  // Every archive answer during the fault is the 503 error record, within the TTFB limit.
  expect(summarizeLoad(archives(inFault)).byStatus).toEqual({ 503: archives(inFault).length });
  expect(archive503.every((o) => o.errorRecord === true)).toBe(true);
  // Every 503 says when to retry: the breaker's next probe, or a second for a failed read.
  expect(archive503.filter((o) => !/^[1-9][0-9]*$/.test(o.retryAfter ?? ''))).toEqual([]);
  expect(Math.max(...archive503.map((o) => Number(o.retryAfter)))).toBeLessThanOrEqual(
    Math.ceil(BREAKER_COOLDOWN_MS / 1000),
  );
  expect(Math.max(...archive503.map((o) => o.ms))).toBeLessThanOrEqual(
    S3_TIMEOUT_MS + LATENCY_MARGIN_MS,
  );
  // The breaker answers the rest at once instead of hammering the store.
  expect(slow503.length).toBeLessThanOrEqual(slowBound);
  expect(archive503.length - slow503.length).toBeGreaterThan(slow503.length);
  // Status keeps answering 200 with the list, healthy false.
  expect(summarizeLoad(statusInFault).byStatus).toEqual({ 200: statusInFault.length });
  for (const s of during) {
    expect(s.res.status).toBe(200);
    expect(s.body?.healthy).toBe(false);
    expect(s.body?.timestamps).toEqual(fault.frames);
  }
  expect(readyDuring).toEqual(fault.replicas.map(() => 200));
  expect(unhealthyMs).toBeLessThanOrEqual(UNHEALTHY_BOUND_MS);
  // Full recovery, no restart: the breaker's own probe finds the store within a cool-down
  // (plus one probe that may still be waiting out the store timeout when it comes back).
  expect(archivesBackMs).toBeLessThanOrEqual(
    BREAKER_COOLDOWN_MS + S3_TIMEOUT_MS + LATENCY_MARGIN_MS,
  );
  expect(healthyBackMs).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
  expect(summarizeLoad(afterRecovery.filter((o) => !isServed(o))).byStatus).toEqual({});
  expect(fault.replicas.every((r) => r.process.child.exitCode === null)).toBe(true);
}

it('store refusing connections: 503 records at once, healthy false, full recovery', async () => {
  await outage('refuse');
});

it('store hanging: 503 records within the first-byte timeout, then at once (breaker), healthy false, full recovery', async () => {
  await outage('hang');
});
