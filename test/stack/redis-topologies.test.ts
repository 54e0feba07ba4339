/**
 * The `redis+sentinel://` and `redis+cluster://` URL schemes against real local topologies:
 * the same catalog scripts, events, shared limits and key compare-and-set must work through
 * ioredis's Sentinel and Cluster clients (the hash tag keeps every script on one slot).
 * Local `redis-server` binaries only (no container path exists for these topologies): without
 * one these tests fail, naming the binary, rather than skip (CI installs it with
 * scripts/install-test-tools.sh).
 */
import fs from 'node:fs';
import path from 'node:path';
import { waitForRedisReady } from '../../src/adapters/redis/client';
import { createRedisCatalog } from '../../src/adapters/redis/catalog';
import { createRedisKeyStore } from '../../src/adapters/redis/key-store';
import { createRedisRateLimiter } from '../../src/adapters/redis/rate-limiter';
import * as commands from '../../src/keys/key-commands';
import { createRedisKeyAdminStore } from '../../src/adapters/redis/key-admin';
import { createSilentLogger } from '../../src/logger';
import { redisBinary } from '../../tools/stack/local-redis';
import { trackRedisConnections } from '../harness/redis-fixture';
import { startRedisCluster, startRedisSentinel, type RedisTopology } from '../harness/redis-server';
import { reportFigure, waitFor } from '../harness/wait';

const logger = createSilentLogger();
const API_KEY = 'rk_topology-key-0123456789';
/** The `redis-server` binary to run: an explicit path, else the first on PATH; else undefined. */
function locateRedisServer(): string | undefined {
  const bin = redisBinary();
  if (bin.includes('/')) return fs.existsSync(bin) ? bin : undefined;
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((dir) => path.join(dir, bin))
    .find((candidate) => fs.existsSync(candidate));
}

test('a local redis-server binary is installed (these topologies need it)', () => {
  expect(locateRedisServer()).toEqual(expect.stringContaining('/'));
});

describe.each([
  ['Sentinel', startRedisSentinel],
  ['Cluster', () => startRedisCluster(3)],
])('%s deployment through its REDIS_URL', (_name, start) => {
  let topology: RedisTopology;
  const connections = trackRedisConnections(() => topology.url);
  const connect = (role: string) => connections.connect(role, { commandTimeoutMs: 1000 });
  const subscribe = () => connections.subscriber('test-sub');

  beforeAll(async () => {
    if (locateRedisServer() === undefined)
      throw new Error(`${redisBinary()} not found: install redis-server to run these tests`);
    topology = await start();
  }, 30_000);

  afterAll(async () => {
    await connections.closeAll();
    await topology?.stop();
  });

  test('catalog publish, events to a replica, prune; shared limits; keys with compare-and-set', async () => {
    const writerClient = connect('ingest');
    await waitForRedisReady(writerClient, 10_000);
    const replica = createRedisCatalog({
      client: connect('api'),
      subscriber: subscribe(),
      logger,
      resyncMs: 60_000,
    });
    await replica.start();
    expect(replica.inSync()).toBe(true);
    const writer = createRedisCatalog({
      client: writerClient,
      subscriber: writerClient,
      logger,
      resyncMs: 60_000,
    });

    const meta = {
      timestamp: '202405011200',
      size: 10_000,
      etag: '"e"',
      lastModified: new Date(1714564800000),
    };
    const started = Date.now();
    expect(await writer.publish(meta)).toBe(true);
    expect(await writer.publish(meta)).toBe(false);
    await waitFor(
      () => replica.current().get(meta.timestamp) !== undefined,
      5000,
      'listed on the replica',
    );
    reportFigure('publish propagated to the replica after', Date.now() - started);
    expect(await writer.prune(Date.UTC(2024, 4, 1, 13))).toEqual([meta.timestamp]);
    await waitFor(() => replica.current().timestamps.length === 0, 5000, 'pruned on the replica');
    await replica.stop();

    const otherClient = connect('api-a');
    await waitForRedisReady(otherClient, 10_000);
    const a = createRedisRateLimiter({ client: otherClient, windowS: 60, logger });
    const b = createRedisRateLimiter({ client: writerClient, windowS: 60, logger });
    const allowed: boolean[] = [];
    for (let i = 0; i < 6; i += 1)
      allowed.push((await (i % 2 === 0 ? a : b).consume('topology-key', 4)).allowed);
    expect(allowed).toEqual([true, true, true, true, false, false]);
    expect(a.degraded() || b.degraded()).toBe(false);

    await createRedisKeyAdminStore(writerClient).update((d) =>
      commands.createKey(commands.createApp(d, 'web'), 'k', ['web'], API_KEY),
    );
    const keys = await createRedisKeyStore({
      client: connect('api-keys'),
      subscriber: subscribe(),
      defaultLimit: 5,
      logger,
      resyncMs: 60_000,
      startTimeoutMs: 10_000,
    });
    expect((await keys.authenticate(API_KEY, 'web')).outcome).toBe('allowed');
    await createRedisKeyAdminStore(writerClient).update((d) =>
      commands.setKeyDisabled(d, 'k', true),
    );
    await waitFor(
      async () => (await keys.authenticate(API_KEY, 'web')).outcome === 'forbidden',
      5000,
      'revoked',
    );
    await keys.close();
  });
});
