/**
 * Replicas agree on `healthy` through a store outage (real Redis and S3): two replicas that
 * probe the store on their own clocks (2 s apart-ish, as replicas started at different times
 * do) reach the bucket through a proxy that refuses every connection for a while (a stopped
 * store). Sampled back to back every 100 ms, both must report the same sequence, true → false →
 * true with no flapping, and disagree at most for the instant a change takes to reach the
 * other (one sample per change); a balancer alternating between them then shows two flips.
 */
import type { Config } from '../../src/config';
import { createSilentLogger } from '../../src/logger';
import { buildReplica, type Replica } from '../../src/wiring/replica';
import { buildArchive } from '../fixtures/archives';
import { request } from '../harness/http-client';
import { stackAuth, startProductionStack, type ProductionStack } from '../harness/production-stack';
import { startFaultProxy, type FaultProxy } from '../harness/s3-server';
import { recentTimestamps } from '../harness/timestamps';
import { reportFigure, waitFor } from '../harness/wait';
import { TIMESTAMPS_KEY } from '../../src/adapters/redis/keys';

jest.setTimeout(120_000);

/** Each replica's probe period; the second starts about half a period after the first. */
const PROBE_MS = 2000;
const OUTAGE_MS = 10_000;

let stack: ProductionStack;
let proxy: FaultProxy;
const replicas: Replica[] = [];

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 0 });
  const [latest] = recentTimestamps(1);
  await stack.s3.put(`${latest}.pmtiles`, buildArchive(latest!, 2));
  await waitFor(
    async () => (await stack.client.zscore(TIMESTAMPS_KEY, latest!)) !== null,
    15_000,
    'frame published',
    50,
  );
  proxy = await startFaultProxy(stack.s3.endpoint);
  const config: Config = stack.config({ S3_ENDPOINT: proxy.endpoint, RADAR_S3_TIMEOUT_MS: '1000' });
  const overrides = { logger: createSilentLogger(), probeIntervalMs: PROBE_MS };
  replicas.push(await buildReplica(config, overrides));
  await new Promise((r) => setTimeout(r, PROBE_MS / 2));
  replicas.push(await buildReplica(config, overrides));
});
afterAll(async () => {
  for (const replica of replicas) await replica.shutdown();
  await proxy?.stop();
  await stack?.stop();
});

async function healthy(replica: Replica): Promise<boolean | undefined> {
  const res = await request(`http://127.0.0.1:${replica.port}`, '/status.json', {
    headers: stackAuth(),
  });
  return res.status === 200 ? res.json<{ healthy: boolean }>().healthy : undefined;
}

/** Consecutive duplicates removed: the sequence of values a replica went through. */
const changes = <T>(values: readonly T[]): T[] =>
  values.filter((v, i) => i === 0 || v !== values[i - 1]);

it('two replicas report the same healthy sequence through a store outage, without flapping', async () => {
  const [a, b] = replicas as [Replica, Replica];
  await waitFor(
    async () => (await healthy(a)) === true && (await healthy(b)) === true,
    20_000,
    'both healthy before the outage',
  );
  const samples: Array<{ a: boolean | undefined; b: boolean | undefined }> = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      samples.push({ a: await healthy(a), b: await healthy(b) });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  await new Promise((r) => setTimeout(r, 1000));
  proxy.setMode('refuse');
  const outageStarted = Date.now();
  await waitFor(() => samples.some((s) => s.a === false && s.b === false), 30_000, 'unhealthy');
  const unhealthyAfterMs = Date.now() - outageStarted;
  await new Promise((r) => setTimeout(r, Math.max(0, outageStarted + OUTAGE_MS - Date.now())));
  proxy.setMode('pass');
  const restored = Date.now();
  await waitFor(
    () => samples.length > 0 && samples.at(-1)!.a === true && samples.at(-1)!.b === true,
    30_000,
    'healthy again',
  );
  const healthyAfterMs = Date.now() - restored;
  await new Promise((r) => setTimeout(r, 2000)); // and it stays so
  sampling = false;
  await sampler;

  const disagreements = samples.filter((s) => s.a !== s.b).length;
  // What a balancer alternating between the two would show.
  const balancerView = samples.flatMap((s) => [s.a, s.b]);
  const balancerFlips = changes(balancerView).length - 1;
  reportFigure('healthy false on both after the store stopped', unhealthyAfterMs);
  reportFigure('healthy true on both after the store returned', healthyAfterMs);
  reportFigure('samples where the replicas disagreed', disagreements, 'of ' + samples.length);
  reportFigure('flips seen through an alternating balancer', balancerFlips, '');

  expect(changes(samples.map((s) => s.a))).toEqual([true, false, true]);
  expect(changes(samples.map((s) => s.b))).toEqual([true, false, true]);
  // A change reaches the other replica within milliseconds: at most one back-to-back sample
  // per change can straddle it.
  expect(disagreements).toBeLessThanOrEqual(2);
  expect(balancerFlips).toBeLessThanOrEqual(2 + disagreements * 2);
  expect(balancerFlips).toBeLessThanOrEqual(4);
});
