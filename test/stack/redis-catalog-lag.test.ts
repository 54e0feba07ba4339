/**
 * A replica's catalog snapshot lagging the Redis index, on a real Redis: the lookup of a
 * timestamp the snapshot lacks (found, missed and remembered, bounded in time and
 * concurrency), the resync every (re)subscription asks for (retried until it succeeds, out of
 * sync until then), and an index lost and partly rebuilt (the last good snapshot is kept until
 * ingest marks the index complete).
 */
import {
  closeRedisClient,
  createRedisClient,
  waitForRedisReady,
  type RedisClient,
} from '../../src/adapters/redis/client';
import { createRedisCatalog, type RedisCatalog } from '../../src/adapters/redis/catalog';
import { createCatalogLookup } from '../../src/adapters/redis/catalog-lookup';
import { archiveKey, TIMESTAMPS_KEY } from '../../src/adapters/redis/keys';
import { metaToHashFields, timestampScore } from '../../src/adapters/redis/catalog-codec';
import { CatalogUnavailableError } from '../../src/domain/archive-errors';
import type { ArchiveMeta } from '../../src/domain/ports';
import { createSilentLogger } from '../../src/logger';
import { useRedis } from '../harness/redis-fixture';
import { startFaultProxy, type FaultProxy } from '../harness/s3-server';
import { recentTimestamps } from '../harness/timestamps';
import { waitFor } from '../harness/wait';

const logger = createSilentLogger();
const catalogs: RedisCatalog[] = [];
const proxies: FaultProxy[] = [];
const opened: RedisClient[] = [];
const QUICK = { maxReconnectDelayMs: 200 };
const redis = useRedis({
  flushAfterEach: true,
  admin: { commandTimeoutMs: 500, ...QUICK },
  afterEachTest: async () => {
    await Promise.all(catalogs.splice(0).map((c) => c.stop()));
    for (const c of opened.splice(0)) await closeRedisClient(c);
    for (const p of proxies.splice(0)) await p.stop();
    await redis.server().resume();
  },
});

function meta(timestamp: string): ArchiveMeta {
  return { timestamp, size: 1000, etag: `"e-${timestamp}"`, lastModified: new Date(1e12) };
}

/** Writes an entry the way the publish script does, but announces nothing (a missed event). */
async function writeSilently(m: ArchiveMeta): Promise<void> {
  await redis
    .admin()
    .multi()
    .hset(archiveKey(m.timestamp), ...metaToHashFields(m))
    .zadd(TIMESTAMPS_KEY, timestampScore(m.timestamp)!, m.timestamp)
    .exec();
}

/** A replica with a long resync period, so only what the test checks can heal it quickly. */
async function startReplica(client = redis.connect('test-api', QUICK)): Promise<RedisCatalog> {
  const catalog = createRedisCatalog({
    client,
    subscriber: redis.subscriber('test-sub', QUICK),
    logger,
    resyncMs: 60_000,
  });
  catalogs.push(catalog);
  await catalog.start();
  return catalog;
}

/** A command client that reaches Redis through a proxy the test can cut. */
async function proxiedClient(): Promise<{ client: RedisClient; proxy: FaultProxy }> {
  const proxy = await startFaultProxy(redis.server().url.replace(/^redis:/, 'http:'));
  proxies.push(proxy);
  const proxied = createRedisClient(proxy.endpoint.replace(/^http:/, 'redis:'), {
    role: 'test-api-proxied',
    logger,
    commandTimeoutMs: 500,
    ...QUICK,
  });
  opened.push(proxied);
  await waitForRedisReady(proxied, 5000);
  return { client: proxied, proxy };
}

describe('a replica snapshot that lags the index', () => {
  test('find: an entry the snapshot missed is looked up, served and listed', async () => {
    const [newer, older] = recentTimestamps(2);
    const catalog = await startReplica();
    await writeSilently(meta(older!));
    await catalog.resync();
    await writeSilently(meta(newer!));
    expect(catalog.current().get(newer!)).toBeUndefined();
    await expect(catalog.find!(newer!)).resolves.toEqual(meta(newer!));
    expect(catalog.current().timestamps).toEqual([newer, older]);
  });

  test('find: a miss is remembered briefly, so a repeated 404 costs Redis nothing', async () => {
    const [ts] = recentTimestamps(1);
    const lookup = createCatalogLookup({
      client: await redis.client('lookup'),
      now: Date.now,
      missTtlMs: 60_000,
    });
    await expect(lookup(ts!)).resolves.toBeUndefined();
    await writeSilently(meta(ts!));
    await expect(lookup(ts!)).resolves.toBeUndefined();
    const fresh = createCatalogLookup({ client: await redis.client('lookup-2'), now: Date.now });
    await expect(fresh(ts!)).resolves.toEqual(meta(ts!));
  });

  test('find: bounded in time and concurrency when Redis does not answer', async () => {
    const [a, b, c] = recentTimestamps(3);
    const lookup = createCatalogLookup({
      client: await redis.client('lookup', 5000),
      now: Date.now,
      timeoutMs: 200,
      maxInFlight: 1,
    });
    await redis.server().pause();
    const first = lookup(a!);
    // One timestamp asked twice shares the one lookup; a second timestamp is refused at once.
    expect(lookup(a!)).toBe(first);
    await expect(lookup(b!)).rejects.toThrow(/too many lookups/);
    await expect(first).rejects.toThrow(/timed out after 200 ms/);
    await expect(lookup(c!)).rejects.toBeInstanceOf(CatalogUnavailableError);
    await redis.server().resume();
  });

  test('a resubscription is followed by a resync, retried until the index answers', async () => {
    const [ts] = recentTimestamps(1);
    const { client, proxy } = await proxiedClient();
    const catalog = await startReplica(client);
    expect(catalog.inSync()).toBe(true);
    // The command connection is down when the subscription comes back: the resync it asks
    // for fails, and an event sent in between is lost.
    proxy.setMode('refuse');
    await redis.admin().client('KILL', 'TYPE', 'pubsub');
    await writeSilently(meta(ts!));
    await waitFor(
      async () => (await redis.admin().pubsub('NUMSUB', '{radar}:events'))[1] === 1,
      5000,
      'resubscribed',
      20,
    );
    expect(catalog.inSync()).toBe(false);
    proxy.setMode('pass');
    // Not the 60 s resync period: the resync is retried as soon as the index answers.
    await waitFor(() => catalog.current().get(ts!) !== undefined, 5000, 'entry resynced', 20);
    await waitFor(() => catalog.inSync(), 5000, 'in sync again', 20);
  });

  test('an index lost and partly rebuilt keeps the last good snapshot until ingest marks it complete', async () => {
    const [newest, middle, oldest] = recentTimestamps(3);
    const writer = createRedisCatalog({
      client: await redis.client('ingest'),
      subscriber: redis.admin(),
      logger,
      resyncMs: 60_000,
    });
    await writer.publish(meta(middle!));
    await writer.publish(meta(oldest!));
    await writer.reconciliation!.complete(await writer.reconciliation!.begin());
    const catalog = await startReplica();
    expect(catalog.current().timestamps).toEqual([middle, oldest]);

    // Redis loses everything; ingest's rebuild has published one old and one new frame so far.
    await redis.admin().flushall();
    const token = await writer.reconciliation!.begin();
    await writer.publish(meta(newest!));
    await writer.publish(meta(middle!));
    await catalog.resync();
    expect(catalog.current().timestamps).toEqual([newest, middle, oldest]);
    expect(catalog.inSync()).toBe(false);

    // The pass ends (the oldest object is gone from the bucket, so it was not republished).
    await writer.reconciliation!.complete(token);
    await catalog.resync();
    expect(catalog.current().timestamps).toEqual([newest, middle]);
    expect(catalog.inSync()).toBe(true);
  });

  test('a pass that straddles an index loss does not mark the new index complete', async () => {
    const writer = createRedisCatalog({
      client: await redis.client('ingest'),
      subscriber: redis.admin(),
      logger,
      resyncMs: 60_000,
    });
    await writer.reconciliation!.complete(null);
    const token = await writer.reconciliation!.begin();
    expect(token).not.toBeNull();
    await redis.admin().flushall();
    await writer.reconciliation!.complete(token);
    await expect(writer.reconciliation!.begin()).resolves.toBeNull();
  });
});
