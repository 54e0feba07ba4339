/**
 * Fault matrix, Redis and the catalog (docs/reliability.md): a replica whose snapshot lags the
 * index must not answer 404 for a frame another replica lists. Map clients poll
 * `/status.json` through nginx (two replicas, round robin) and read every listed frame, while
 * (1) one replica loses Redis as frames are published and gets it back later, and (2) archives
 * land in the bucket while Redis is down, and each replica's event subscription reconnects on
 * its own backoff after Redis returns. Each replica reaches Redis through its own proxy.
 */
import type { SpawnedReplica } from '../harness/edge-stack';
import { formatTimestamp, parseTimestamp } from '../../src/domain/timestamps';
import {
  delay,
  faultAuth,
  replicaStatus,
  reportFault,
  startFaultStack,
  uploadFrames,
  type FaultStack,
} from '../harness/fault-stack';
import {
  startMapClientLoad,
  summarizeLoad,
  type LoadOutcome,
  type MapClientLoad,
} from '../harness/map-client-load';
import { recentTimestamps } from '../harness/timestamps';
import { waitFor } from '../harness/wait';

jest.setTimeout(120_000);

let fault: FaultStack;

beforeAll(async () => {
  // Seeded frames end six cadence steps back, so frames published later can be newer than
  // every listed one (and some land between two listed ones, late).
  fault = await startFaultStack({ frames: 6, framesOffset: 6, redisProxy: true });
});
afterAll(async () => {
  await fault?.stop();
});

/** Every frame a client walks, through nginx, as fast as the replicas answer. */
async function startLoad(frames: number): Promise<MapClientLoad> {
  const load = startMapClientLoad({
    baseUrl: fault.nginx.url,
    headers: faultAuth(),
    clients: 4,
    frames,
    tilesPerFrame: 0,
    pauseMs: 5,
    durationMs: 60_000,
  });
  await waitFor(() => load.outcomes.length >= 20, 10_000, 'load running', 20);
  return load;
}

function lists(replica: SpawnedReplica, expected: readonly string[]): () => Promise<boolean> {
  return async () =>
    JSON.stringify((await replicaStatus(replica)).body?.timestamps) === JSON.stringify(expected);
}

/**
 * Archive reads of listed frames that were not served: only a 503 with `Retry-After` (a
 * replica that cannot ask the index yet says so) may appear, never a 404 or a transport error.
 */
function notServedOtherThan503(outcomes: readonly LoadOutcome[]): LoadOutcome[] {
  return outcomes.filter(
    (o) =>
      o.kind === 'header' &&
      o.status !== 206 &&
      !(o.status === 503 && o.errorRecord === true && o.retryAfter === '1'),
  );
}

/** Archive reads of listed frames that answered 404 (the clients only read listed frames). */
function listedNotFound(outcomes: readonly LoadOutcome[]): string[] {
  return outcomes.filter((o) => o.kind === 'header' && o.status === 404).map((o) => o.path);
}

/** A frame one cadence step after `timestamp` minus one minute: between two listed frames. */
function between(timestamp: string): string {
  return formatTimestamp(parseTimestamp(timestamp)! + 60_000);
}

it('one replica loses Redis while frames are published: no listed frame answers 404', async () => {
  const [a, b] = fault.replicas as [SpawnedReplica, SpawnedReplica];
  const added = [...recentTimestamps(2, 4), between(fault.frames[1]!)];
  const all = [...fault.frames, ...added].sort().reverse();
  const load = await startLoad(all.length);
  fault.redisProxies[1]!.setMode('refuse');
  await uploadFrames(fault.stack, added, 2);
  await waitFor(lists(a, all), 15_000, 'replica A lists the new frames', 50);
  // Clients now read A's list and ask both replicas for the new frames.
  await delay(1500);
  fault.redisProxies[1]!.setMode('pass');
  const backAt = Date.now();
  const caughtUpMs = await waitFor(lists(b, all), 15_000, 'replica B lists them too', 20);
  await delay(1000);
  const outcomes = await load.stop();
  const notFound = listedNotFound(outcomes);
  await reportFault('redis-catalog-replica-cut', {
    ...summarizeLoad(outcomes),
    listedButNotFound: notFound.length,
    replicaCaughtUpAfterMs: caughtUpMs,
    notServedAfterReturn: summarizeLoad(
      outcomes.filter((o) => o.start >= backAt && o.status !== 200 && o.status !== 206),
    ).byStatus,
  });
  expect(notFound).toEqual([]);
  expect(notServedOtherThan503(outcomes)).toEqual([]);
});

it('archives published while Redis is down: no listed frame answers 404 after it returns', async () => {
  const added = [...recentTimestamps(2, 0), between(fault.frames[3]!)];
  const listed = (await replicaStatus(fault.replicas[0]!)).body!.timestamps;
  const all = [...listed, ...added].sort().reverse();
  const load = await startLoad(all.length);
  await fault.stack.redis.kill();
  await uploadFrames(fault.stack, added, 2);
  // Long enough for the reconnect backoff to reach its cap, so the replicas' connections
  // come back at different moments, as in production.
  await delay(3000);
  await fault.stack.redis.restart();
  for (const replica of fault.replicas)
    await waitFor(lists(replica, all), 20_000, 'both replicas list every frame', 50);
  await delay(1000);
  const outcomes = await load.stop();
  const notFound = listedNotFound(outcomes);
  await reportFault('redis-catalog-restart', {
    ...summarizeLoad(outcomes),
    listedButNotFound: notFound.length,
  });
  expect(notFound).toEqual([]);
  expect(notServedOtherThan503(outcomes)).toEqual([]);
});
