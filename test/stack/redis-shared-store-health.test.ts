/**
 * The shared store view on a real Redis: hysteresis over the probe results of all replicas
 * (two consecutive failures to go down, two successes to come back, a mixed sequence changes
 * nothing), a change reaches the other replica through the channel before its own next probe,
 * and without Redis a replica falls back to its own probe once its shared view is stale.
 */
import {
  createSharedStoreHealth,
  type SharedStoreHealth,
} from '../../src/adapters/redis/shared-store-health';
import { createSilentLogger } from '../../src/logger';
import { useRedis } from '../harness/redis-fixture';
import { waitFor } from '../harness/wait';

const logger = createSilentLogger();
const redis = useRedis();
const views: SharedStoreHealth[] = [];

async function replica(local: () => boolean, ttlMs = 60_000): Promise<SharedStoreHealth> {
  const client = await redis.client('api', 300);
  const subscriber = redis.subscriber('api-sub');
  const view = createSharedStoreHealth({ client, subscriber, local, ttlMs, logger });
  await view.start();
  views.push(view);
  return view;
}

afterEach(async () => {
  await Promise.all(views.splice(0).map((v) => v.stop()));
});

it('goes down after two consecutive failures from any replica, up after two successes', async () => {
  const a = await replica(() => true);
  const b = await replica(() => true);
  await a.report(true);
  expect([a.reachable(), b.reachable()]).toEqual([true, true]);
  // Mixed results (one replica cut off, the other fine) never reach two in a row.
  for (const ok of [false, true, false, true, false]) await (ok ? b : a).report(ok);
  expect([a.reachable(), b.reachable()]).toEqual([true, true]);

  await a.report(false);
  // b has not probed since: it learns the change from the channel.
  await waitFor(() => !a.reachable() && !b.reachable(), 2000, 'both down');
  await b.report(true);
  expect([a.reachable(), b.reachable()]).toEqual([false, false]);
  await a.report(true);
  await waitFor(() => a.reachable() && b.reachable(), 2000, 'both up');
});

it('falls back to its own probe when Redis does not answer and its view is stale', async () => {
  let local = true;
  const a = await replica(() => local, 500);
  await a.report(false);
  await a.report(false);
  expect(a.reachable()).toBe(false); // the shared view, though this replica's probe says true
  await redis.server().kill();
  await a.report(true); // fails quietly
  await waitFor(() => a.reachable(), 3000, 'own probe decides once the shared view is stale');
  local = false;
  expect(a.reachable()).toBe(false);
  await redis.server().restart();
});
