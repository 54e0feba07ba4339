/**
 * A (re)started replica opens its public port only once its parts have started (catalog
 * loaded, keys loaded): nginx looks at the port, not at `/readyz`, so a port that opens
 * earlier answers clients with an empty catalog ("nothing published") or no keys. Redis is
 * frozen while the replica starts, which holds the catalog's first load for as long as the
 * test likes; every answer the public port gives must then be the full status.
 */
import os from 'node:os';
import { edgeRequest } from '../harness/edge-stack';
import { readyz, uploadFrames, indexedTimestamps, delay } from '../harness/fault-stack';
import { startProductionStack, stackAuth, type ProductionStack } from '../harness/production-stack';
import { API_ENTRY, freePort, spawnNode, type SpawnedProcess } from '../harness/spawned-api';
import { recentTimestamps } from '../harness/timestamps';
import { waitFor } from '../harness/wait';
import { backendEnv } from '../../tools/stack/backend-env';

jest.setTimeout(60_000);

let stack: ProductionStack;
let replica: SpawnedProcess | undefined;

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 0 });
});
afterAll(async () => {
  await replica?.stop('SIGKILL');
  await stack?.redis.resume();
  await stack?.stop();
});

it('answers nothing on its public port before its catalog and keys have loaded', async () => {
  const frames = recentTimestamps(3);
  await uploadFrames(stack, frames, 1);
  await waitFor(async () => (await indexedTimestamps(stack)).length === 3, 15_000, 'published');
  const [port, adminPort] = [await freePort(), await freePort()];
  await stack.redis.pause();
  replica = spawnNode(API_ENTRY, {
    cwd: os.tmpdir(),
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      ...backendEnv(stack.redis.url, stack.s3),
      RADAR_RETENTION_S: String(10 * 365 * 86400),
      LOG_LEVEL: 'warn',
    },
  });
  const answers: number[] = [];
  const poll = async (until: () => boolean) => {
    while (!until()) {
      const res = await edgeRequest(`http://127.0.0.1:${port}`, '/status.json', {
        headers: stackAuth(),
        timeoutMs: 10_000,
      }).catch(() => undefined);
      if (res) answers.push(res.status);
      await delay(20);
    }
  };
  // The replica waits on the frozen Redis; clients knock meanwhile, then Redis thaws.
  let thawed = false;
  const polling = poll(() => thawed && answers.includes(200));
  await delay(1500);
  await stack.redis.resume();
  thawed = true;
  await polling;
  expect(await readyz(adminPort)).toBe(200);
  expect(new Set(answers)).toEqual(new Set([200]));
});
