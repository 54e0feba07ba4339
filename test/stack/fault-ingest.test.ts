/**
 * Fault matrix, ingest (docs/reliability.md): two ingest workers (`node dist/bin/ingest.js`)
 * share the Redis lease while a producer uploads archives and map clients read the stack
 * through nginx. The leader is SIGKILLed in the middle of a publishing pass and restarted;
 * later the leader is frozen, its lease handed over, and it is thawed while the new leader is
 * publishing, so two workers that both believe they lead race over the same objects. Every
 * valid upload must be published exactly once (one event on the catalog channel each, and the
 * workers' `radar_ingest_published_total` adds up), none lost, and no status list repeats an
 * entry.
 */
import Redis from 'ioredis';
import { CATALOG_EVENTS_CHANNEL, INGEST_LEADER_KEY } from '../../src/adapters/redis/keys';
import {
  delay,
  indexedTimestamps,
  metric,
  replicaStatus,
  reportFault,
  spawnIngest,
  startFaultStack,
  uploadFrames,
  type FaultStack,
  type SpawnedIngest,
} from '../harness/fault-stack';
import { startFaultLoad } from '../harness/fault-load';
import { isServed, summarizeLoad, type StatusBody } from '../harness/map-client-load';
import { waitFor } from '../harness/wait';
import { recentTimestamps } from '../harness/timestamps';

jest.setTimeout(90_000);

/** The worker's lease (src/wiring/ingest.ts): 15 s TTL, renewed every 5 s. */
const LEASE_TTL_MS = 15_000;
const LEASE_RENEW_MS = 5_000;

let fault: FaultStack;
let subscriber: Redis;
const events = new Map<string, number>();
const workers: SpawnedIngest[] = [];

beforeAll(async () => {
  fault = await startFaultStack({ ingest: 'none' });
  subscriber = new Redis(fault.stack.redis.url, { maxRetriesPerRequest: null });
  subscriber.on('message', (_channel: string, message: string) => {
    const event = JSON.parse(message) as {
      type: string;
      timestamp?: string;
      meta?: { timestamp?: string };
    };
    const ts = event.timestamp ?? event.meta?.timestamp;
    if (event.type === 'publish' && ts) events.set(ts, (events.get(ts) ?? 0) + 1);
  });
  await subscriber.subscribe(CATALOG_EVENTS_CHANNEL);
});
afterAll(async () => {
  for (const w of workers) {
    w.process.child.kill('SIGCONT');
    await w.process.stop('SIGKILL');
  }
  subscriber?.disconnect();
  await fault?.stop();
});

async function leaderOf(candidates: readonly SpawnedIngest[]): Promise<SpawnedIngest | undefined> {
  const flags = await Promise.all(
    candidates.map((w) => metric(w.adminPort, 'radar_ingest_leader').catch(() => 0)),
  );
  return flags.filter((f) => f === 1).length === 1 ? candidates[flags.indexOf(1)] : undefined;
}

async function publishedCount(): Promise<number> {
  return (await indexedTimestamps(fault.stack)).length;
}

it('a worker killed mid-publish and restarted, and two workers racing: every archive published exactly once', async () => {
  const statusBodies: StatusBody[] = [];
  const load = startFaultLoad(fault, 80_000, (body) => statusBodies.push(body));
  const [a, b] = await Promise.all([spawnIngest(fault.stack), spawnIngest(fault.stack)]);
  workers.push(a, b);
  let leader = await waitFor(
    async () => (await leaderOf([a, b])) !== undefined,
    10_000,
    'one leader',
    50,
  ).then(() => leaderOf([a, b]));

  // ---- phase 1: SIGKILL the leader in the middle of a publishing pass, keep uploading ----
  const base = await publishedCount();
  const burst1 = recentTimestamps(20, 10);
  const trickle = recentTimestamps(5, 40);
  await Promise.all(burst1.map((ts) => uploadFrames(fault.stack, [ts])));
  let killedWith = -1;
  await waitFor(
    async () => {
      const n = await publishedCount();
      if (n === base) return false;
      leader!.process.child.kill('SIGKILL');
      killedWith = n - base;
      return true;
    },
    10_000,
    'the leader publishing the burst',
    2,
  );
  const killedAt = Date.now();
  const killed = leader!;
  const survivor = killed === a ? b : a;
  const settledAtKill = (await publishedCount()) - base;
  // The producer keeps uploading while the leader is dead; the killed worker is restarted.
  for (const ts of trickle) {
    await uploadFrames(fault.stack, [ts]);
    await delay(200);
  }
  const restarted = await spawnIngest(fault.stack);
  workers.push(restarted);
  const phase1 = [...burst1, ...trickle];
  await waitFor(
    async () => (await publishedCount()) === base + phase1.length,
    LEASE_TTL_MS + LEASE_RENEW_MS + 10_000,
    'every phase-1 archive published after the kill',
    50,
  );
  const phase1DoneMs = Date.now() - killedAt;

  // ---- phase 2: two workers that both believe they lead ----
  const live = [survivor, restarted];
  leader = await waitFor(
    async () => (await leaderOf(live)) !== undefined,
    LEASE_RENEW_MS * 3,
    'one live leader',
    50,
  ).then(() => leaderOf(live));
  const old = leader!;
  const next = old === survivor ? restarted : survivor;
  const publishedBefore = await Promise.all(
    live.map((w) => metric(w.adminPort, 'radar_ingest_published_total')),
  );
  old.process.child.kill('SIGSTOP');
  await fault.stack.client.del(INGEST_LEADER_KEY);
  await waitFor(
    async () => (await metric(next.adminPort, 'radar_ingest_leader')) === 1,
    LEASE_RENEW_MS + 5000,
    'the other worker taking the lease',
    50,
  );
  const base2 = await publishedCount();
  const burst2 = recentTimestamps(30, 50);
  await Promise.all(burst2.map((ts) => uploadFrames(fault.stack, [ts])));
  await waitFor(async () => (await publishedCount()) > base2, 10_000, 'new leader publishing', 2);
  // Thawed mid-pass: its overdue poll timer starts a pass while it still believes it leads.
  old.process.child.kill('SIGCONT');
  await waitFor(
    async () => (await publishedCount()) === base2 + burst2.length,
    15_000,
    'burst 2 published',
    50,
  );
  // Both passes are over once the thawed worker has renewed (and lost) its lease.
  await waitFor(
    async () => (await metric(old.adminPort, 'radar_ingest_leader')) === 0,
    LEASE_RENEW_MS + 5000,
    'old leader stepped down',
    100,
  );
  await delay(1500); // one more poll period of both workers: any late double publish would show
  const publishedAfter = await Promise.all(
    live.map((w) => metric(w.adminPort, 'radar_ingest_published_total')),
  );
  const phase2ByWorker = publishedAfter.map((n, i) => n - publishedBefore[i]!);

  const loadOutcomes = await load.stop();
  const uploaded = [...fault.frames, ...phase1, ...burst2].sort().reverse();
  const index = await indexedTimestamps(fault.stack);
  const statuses = await Promise.all(fault.replicas.map((r) => replicaStatus(r)));
  const counts = [...phase1, ...burst2].map((ts) => events.get(ts) ?? 0);
  const duplicated = statusBodies.filter(
    (s) => new Set(s.timestamps).size !== s.timestamps.length,
  ).length;

  await reportFault('ingest-kill-and-race', {
    ...summarizeLoad(loadOutcomes),
    uploadedValid: phase1.length + burst2.length,
    killedMidPass: {
      publishedWhenKilled: killedWith,
      settledAfterKill: settledAtKill,
      ofBurst: burst1.length,
    },
    phase1AllPublishedAfterKillMs: phase1DoneMs,
    phase2PublishedByWorker: {
      newLeader: phase2ByWorker[live.indexOf(next)],
      thawedOldLeader: phase2ByWorker[live.indexOf(old)],
    },
    publishEventsPerTimestamp: { min: Math.min(...counts), max: Math.max(...counts) },
    statusBodiesChecked: statusBodies.length,
    statusBodiesWithDuplicates: duplicated,
  });

  // Killed in the middle of the pass: part of the burst was published, the rest was not.
  expect(killedWith).toBeGreaterThan(0);
  expect(settledAtKill).toBeLessThan(burst1.length);
  expect(index).toEqual(uploaded);
  for (const s of statuses) expect(s.body?.timestamps).toEqual(uploaded);
  expect(counts.every((c) => c === 1)).toBe(true);
  expect(phase2ByWorker.reduce((x, y) => x + y, 0)).toBe(burst2.length);
  expect(duplicated).toBe(0);
  expect(statusBodies.length).toBeGreaterThan(10);
  expect(statusBodies.every((s) => fault.frames.every((ts) => s.timestamps.includes(ts)))).toBe(
    true,
  );
  expect(summarizeLoad(loadOutcomes.filter((o) => !isServed(o))).byStatus).toEqual({});
});
