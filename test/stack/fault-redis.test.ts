/**
 * Fault matrix, Redis (docs/reliability.md): the real stack (nginx, two replica processes, Redis,
 * S3 endpoint, ingest worker) under a bounded map-client load while Redis is frozen, flushed,
 * and killed for 10 s. Order matters only for speed: one stack serves the three scenarios.
 *
 * Keys stay in Redis (the production shape, no RADAR_KEYS_FILE): FLUSHALL and the empty Redis
 * after the restart both delete the registry, and the README's policy is that the last good
 * registry stays in force. These tests depend on that policy and check it (the load key keeps
 * working while the registry is absent).
 */
import { KEY_REGISTRY_KEY } from '../../src/adapters/redis/keys';
import { edgeRequest, type SpawnedReplica } from '../harness/edge-stack';
import {
  delay,
  FAULT_KEY_LIMIT,
  FAULT_KEYS,
  FAULT_REPLICA_ENV,
  faultAuth,
  indexedTimestamps,
  metric,
  replicaStatus,
  reportFault,
  startFaultStack,
  type FaultStack,
} from '../harness/fault-stack';
import { loadRunning, startFaultLoad } from '../harness/fault-load';
import { isServed, summarizeLoad, type LoadOutcome } from '../harness/map-client-load';
import { waitFor } from '../harness/wait';

jest.setTimeout(90_000);

const REDIS_TIMEOUT_MS = Number(FAULT_REPLICA_ENV.RADAR_REDIS_TIMEOUT_MS);
/**
 * Allowance over the Redis timeout: wide for a shared machine (the worst figure is reported),
 * yet the bound stays well under the 3 s freeze, so a request that waited on Redis fails it.
 */
const LATENCY_MARGIN_MS = 1500;
const POLL_MS = Number(FAULT_REPLICA_ENV.RADAR_INGEST_POLL_S) * 1000;
const RESYNC_MS = Number(FAULT_REPLICA_ENV.RADAR_RESYNC_S) * 1000;
/** After FLUSHALL: the next reconciliation pass, a replica resync, and 3 s for a loaded machine. */
const REBUILD_BOUND_MS = POLL_MS + RESYNC_MS + 3000;

let fault: FaultStack;

beforeAll(async () => {
  fault = await startFaultStack();
});
afterAll(async () => {
  await fault?.stop();
});

/** `radar_rate_limiter_degraded` of every replica. */
function degraded(): Promise<number[]> {
  return Promise.all(fault.replicas.map((r) => metric(r.adminPort, 'radar_rate_limiter_degraded')));
}

/**
 * A request that costs one rate-limit point and does not depend on the catalog: a valid
 * timestamp that is never published answers 404 with the X-RateLimit-* headers (limit step
 * before lookup), or 429 once the key is exhausted.
 */
function spend(replica: SpawnedReplica, key: string) {
  return edgeRequest(replica.url, '/tiles/200001010000.pmtiles', {
    headers: faultAuth(key),
    timeoutMs: 5000,
  });
}

/** Waits until the in-process ingest worker holds the lease again (it drops it when Redis fails). */
function ingestLeader(): Promise<number> {
  return waitFor(
    async () => (await metric(fault.stack.ingest.adminPort, 'radar_ingest_leader')) === 1,
    20_000,
    'ingest worker leading',
    100,
  );
}

function pids(): Array<number | undefined> {
  return fault.replicas.map((r) => r.process.child.pid);
}

function replicasAlive(before: Array<number | undefined>): boolean {
  return fault.replicas.every(
    (r, i) => r.process.child.exitCode === null && r.process.child.pid === before[i],
  );
}

/** When the failures happened, in ms relative to `from` (first start, last end). */
function failureWindow(failures: readonly LoadOutcome[], from: number) {
  if (failures.length === 0) return null;
  return {
    firstMs: Math.min(...failures.map((o) => o.start)) - from,
    lastMs: Math.max(...failures.map((o) => o.start + o.ms)) - from,
  };
}

function fiveHundreds(outcomes: readonly LoadOutcome[]): LoadOutcome[] {
  return outcomes.filter((o) => typeof o.status !== 'number' || o.status >= 500);
}

it('Redis frozen (SIGSTOP): no request waits longer than the Redis timeout plus a margin', async () => {
  const before = pids();
  const load = startFaultLoad(fault, 30_000);
  await loadRunning(load);
  const pausedAt = Date.now();
  await fault.stack.redis.pause();
  // The fault lasts 3 s: six command timeouts, long enough for every client to meet it.
  await delay(3000);
  const degradedWhileFrozen = await degraded();
  await fault.stack.redis.resume();
  const resumedAt = Date.now();
  const recoveredMs = await waitFor(
    async () => (await degraded()).every((v) => v === 0),
    5000,
    'limiter shared again',
    50,
  );
  await loadRunning(load);
  const outcomes = await load.stop();

  const during = outcomes.filter((o) => o.start + o.ms >= pausedAt && o.start <= resumedAt);
  const summary = summarizeLoad(outcomes);
  const duringSummary = summarizeLoad(during);
  await reportFault('redis-frozen', {
    frozenMs: resumedAt - pausedAt,
    redisTimeoutMs: REDIS_TIMEOUT_MS,
    marginMs: LATENCY_MARGIN_MS,
    ...summary,
    duringFreeze: {
      requests: duringSummary.requests,
      byStatus: duringSummary.byStatus,
      worstMs: duringSummary.worstMs,
    },
    degradedWhileFrozen,
    sharedAgainMs: recoveredMs,
  });

  expect(during.length).toBeGreaterThan(8);
  expect(duringSummary.worstMs).toBeLessThanOrEqual(REDIS_TIMEOUT_MS + LATENCY_MARGIN_MS);
  expect(summarizeLoad(outcomes.filter((o) => !isServed(o))).byStatus).toEqual({});
  expect(degradedWhileFrozen).toEqual([1, 1]);
  expect(replicasAlive(before)).toBe(true);
});

it('Redis flushed (FLUSHALL): the catalog is rebuilt from the bucket and served again without restart', async () => {
  const before = pids();
  const all = [...fault.frames].sort().reverse();
  await ingestLeader();
  expect(await indexedTimestamps(fault.stack)).toEqual(all);
  const load = startFaultLoad(fault, 30_000);
  await loadRunning(load);
  const flushedAt = Date.now();
  await fault.stack.client.flushall();
  const rebuiltMs = await waitFor(
    async () => (await indexedTimestamps(fault.stack)).length === all.length,
    POLL_MS + 10_000,
    'index rebuilt',
    20,
  );
  const servedMs = await waitFor(
    async () => {
      const statuses = await Promise.all(fault.replicas.map((r) => replicaStatus(r)));
      return statuses.every((s) => JSON.stringify(s.body?.timestamps) === JSON.stringify(all));
    },
    POLL_MS + 10_000,
    'replicas serving the full list',
    50,
  );
  // The registry is gone from Redis and nobody restored it: the last good keys stay in force.
  const registryPresent = await fault.stack.client.exists(KEY_REGISTRY_KEY);
  const afterServed = load.outcomes.length;
  await loadRunning(load);
  const outcomes = await load.stop();
  const afterRebuild = outcomes.slice(afterServed);

  await reportFault('redis-flushall', {
    ...summarizeLoad(outcomes),
    indexRebuiltMs: rebuiltMs,
    bothReplicasFullListMs: servedMs,
    boundMs: REBUILD_BOUND_MS,
    keyRegistryInRedisAfterFlush: registryPresent === 1,
    notServedWindow: failureWindow(
      outcomes.filter((o) => !isServed(o)),
      flushedAt,
    ),
  });

  expect(registryPresent).toBe(0);
  expect(summarizeLoad(afterRebuild.filter((o) => !isServed(o))).byStatus).toEqual({});
  expect(await indexedTimestamps(fault.stack)).toEqual(all);
  // Rebuilt by the next reconciliation pass: one poll period, plus a resync and a margin.
  expect(rebuiltMs).toBeLessThanOrEqual(REBUILD_BOUND_MS);
  expect(servedMs).toBeLessThanOrEqual(REBUILD_BOUND_MS);
  expect(replicasAlive(before)).toBe(true);
});

it('Redis killed for 10 s and restarted: no 5xx, insurance limits meanwhile, shared limits again within 2 s', async () => {
  const before = pids();
  const all = [...fault.frames].sort().reverse();
  const [a, b] = fault.replicas as [SpawnedReplica, SpawnedReplica];
  const load = startFaultLoad(fault, 60_000);
  await loadRunning(load);

  const killedAt = Date.now();
  await fault.stack.redis.kill();
  const degradedMs = await waitFor(
    async () => (await degraded()).every((v) => v === 1),
    5000,
    'limiter degraded',
    50,
  );

  // Insurance limiter: the limited key is counted per replica (fail open, replicas x limit).
  const perReplica: number[][] = [];
  for (const replica of [a, b]) {
    const statuses: number[] = [];
    for (let i = 0; i <= FAULT_KEY_LIMIT; i++)
      statuses.push((await spend(replica, FAULT_KEYS.limitedA)).status);
    perReplica.push(statuses);
  }

  // The outage lasts 10 s (the scenario's parameter, not a condition to wait for).
  await delay(Math.max(0, killedAt + 10_000 - Date.now()));
  await fault.stack.redis.restart();
  const backAt = Date.now();
  const degradedBackMs = await waitFor(
    async () => (await degraded()).every((v) => v === 0),
    5000,
    'limiter shared again',
    20,
  );

  // A limited key's count is shared again: alternate replicas, the remaining count falls by
  // one per request whichever replica answers, and the (limit+1)th request is 429 on both.
  let sharedFromMs = Number.NaN;
  const sharedKeys = [FAULT_KEYS.limitedB, FAULT_KEYS.limitedC];
  for (const key of sharedKeys) {
    const startedMs = Date.now() - backAt;
    const remaining: number[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < FAULT_KEY_LIMIT + 2; i++) {
      const res = await spend(i % 2 === 0 ? a : b, key);
      statuses.push(res.status);
      remaining.push(Number(res.headers['x-ratelimit-remaining']));
    }
    const expectedRemaining = Array.from({ length: FAULT_KEY_LIMIT + 2 }, (_, i) =>
      Math.max(0, FAULT_KEY_LIMIT - 1 - i),
    );
    const expectedStatuses = [...Array<number>(FAULT_KEY_LIMIT).fill(404), 429, 429];
    if (
      JSON.stringify(remaining) === JSON.stringify(expectedRemaining) &&
      JSON.stringify(statuses) === JSON.stringify(expectedStatuses)
    ) {
      sharedFromMs = startedMs;
      break;
    }
  }

  const indexBackMs = await waitFor(
    async () => (await indexedTimestamps(fault.stack).catch(() => [])).length === all.length,
    20_000,
    'index rebuilt after the restart',
    50,
  );
  const servedMs = await waitFor(
    async () => {
      const statuses = await Promise.all(fault.replicas.map((r) => replicaStatus(r)));
      return statuses.every((s) => JSON.stringify(s.body?.timestamps) === JSON.stringify(all));
    },
    20_000,
    'replicas serving the full list after the restart',
    50,
  );
  await loadRunning(load);
  const outcomes = await load.stop();
  const errors = fiveHundreds(outcomes);
  const notServed = outcomes.filter((o) => !isServed(o));

  await reportFault('redis-killed-10s', {
    outageMs: backAt - killedAt,
    ...summarizeLoad(outcomes),
    degradedAfterKillMs: degradedMs,
    insuranceStatusesPerReplica: perReplica,
    degradedBackToZeroMs: degradedBackMs,
    sharedLimitVerifiedFromMs: sharedFromMs,
    indexRebuiltAfterRestartMs: indexBackMs,
    fullListServedAfterRestartMs: servedMs,
    notServedAfterRestart: summarizeLoad(notServed.filter((o) => o.start + o.ms >= backAt))
      .byStatus,
    notServedWindow: failureWindow(notServed, backAt),
    replicasRestarted: !replicasAlive(before),
  });

  const insurance = [...Array<number>(FAULT_KEY_LIMIT).fill(404), 429];
  expect(perReplica).toEqual([insurance, insurance]);
  expect(degradedBackMs).toBeLessThanOrEqual(2000);
  expect(sharedFromMs).toBeLessThanOrEqual(2000);
  expect(replicasAlive(before)).toBe(true);
  // Status and archives keep succeeding through the outage and the restart.
  expect(summarizeLoad(errors).byStatus).toEqual({});
  expect(summarizeLoad(notServed).byStatus).toEqual({});
});
