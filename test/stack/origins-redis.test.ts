/**
 * Per-key allowed origins with the Redis key store: set through the key CLI's store and
 * commands, they reach both replicas within the reload time (event-driven), wildcards match
 * subdomains only, and 403s spend no point of the shared limit.
 */
import { createRedisKeyAdminStore } from '../../src/adapters/redis/key-admin';
import * as commands from '../../src/keys/key-commands';
import { buildArchive } from '../fixtures/archives';
import { request } from '../harness/http-client';
import { startProductionStack, stackAuth, type ProductionStack } from '../harness/production-stack';
import { reportFigure, waitFor } from '../harness/wait';
import { recentTimestamp } from '../harness/timestamps';

jest.setTimeout(60_000);

let stack: ProductionStack;
const get = (url: string, headers: Record<string, string>) =>
  request(url, '/status.json', { headers: { ...stackAuth(), ...headers } });

/** Applies a registry edit and waits until every replica answers `expected` to `probe`. */
async function apply(
  edit: Parameters<ReturnType<typeof createRedisKeyAdminStore>['update']>[0],
  probe: Record<string, string>,
  expected: number,
): Promise<number> {
  const started = Date.now();
  await createRedisKeyAdminStore(stack.client).update(edit);
  // The reload targets 2 s; the wait allows 10 s on a busy machine and the figure is reported.
  for (const url of stack.baseUrls) {
    await waitFor(async () => (await get(url, probe)).status === expected, 10_000, url, 20);
  }
  return Date.now() - started;
}

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 2 });
  const ts = recentTimestamp();
  await stack.s3.put(`${ts}.pmtiles`, buildArchive(ts, 1));
  for (const url of stack.baseUrls) {
    await waitFor(async () => (await get(url, {})).status === 200, 15_000, `${ts} on ${url}`, 50);
  }
});
afterAll(() => stack?.stop());

it('origins set in Redis apply on every replica within the reload time', async () => {
  const ms = await apply(
    (d) => commands.setKeyOrigins(d, 'good', ['https://*.acme.org']),
    { Origin: 'https://evil.example' },
    403,
  );
  reportFigure('origin restriction reached both replicas after', ms);
  for (const url of stack.baseUrls) {
    expect((await get(url, { Origin: 'https://maps.acme.org' })).status).toBe(200);
    expect((await get(url, { Origin: 'https://acme.org' })).status).toBe(403);
    expect((await get(url, { Referer: 'https://a.b.acme.org/x' })).status).toBe(200);
    expect((await get(url, {})).status).toBe(200);
  }
});

it('403 for a foreign origin spends no point of the shared limit', async () => {
  const probe = async () =>
    Number(
      (await get(stack.baseUrls[0]!, { Origin: 'https://maps.acme.org' })).headers[
        'x-ratelimit-remaining'
      ],
    );
  const before = await probe();
  for (const url of stack.baseUrls) {
    const res = await get(url, { Origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  }
  expect(await probe()).toBe(before - 1);
});

it('requireOrigin and its removal, through the store', async () => {
  await apply((d) => commands.setKeyRequireOrigin(d, 'good', true), {}, 403);
  expect((await get(stack.baseUrls[1]!, { Origin: 'https://maps.acme.org' })).status).toBe(200);
  const ms = await apply(
    (d) => commands.setKeyRequireOrigin(commands.setKeyOrigins(d, 'good', []), 'good', false),
    { Origin: 'https://evil.example' },
    200,
  );
  console.info(`[origins-redis] restriction lifted on both replicas after ${ms} ms`);
  for (const url of stack.baseUrls) expect((await get(url, {})).status).toBe(200);
});
