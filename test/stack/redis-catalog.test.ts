/**
 * The Redis catalog against a real Redis (container or local redis-server, see the harness):
 * exactly-once publication, propagation to every replica by events, healing by resync, and
 * recovery after Redis restarts empty — all without restarting a replica.
 */
import { waitForRedisReady, type RedisClient } from '../../src/adapters/redis/client';
import { createRedisCatalog, type RedisCatalog } from '../../src/adapters/redis/catalog';
import {
  archiveKey,
  CATALOG_EVENTS_CHANNEL,
  CATALOG_VERSION_KEY,
  TIMESTAMPS_KEY,
} from '../../src/adapters/redis/keys';
import type { ArchiveMeta, CatalogSnapshot } from '../../src/domain/ports';
import { parseTimestamp } from '../../src/domain/timestamps';
import { createSilentLogger } from '../../src/logger';
import { useRedis } from '../harness/redis-fixture';
import { reportFigure, waitFor } from '../harness/wait';

const logger = createSilentLogger();
const catalogs: RedisCatalog[] = [];
/** Quick reconnects, so that the restart tests see Redis again soon. */
const QUICK = { maxReconnectDelayMs: 200 };
const redis = useRedis({
  flushAfterEach: true,
  admin: { commandTimeoutMs: 500, ...QUICK },
  afterEachTest: () => Promise.all(catalogs.splice(0).map((c) => c.stop())),
});

function meta(timestamp: string, size = 1000): ArchiveMeta {
  return {
    timestamp,
    size,
    etag: `"etag-${timestamp}"`,
    lastModified: new Date(Date.UTC(2024, 4, 1, 12, 0, 7)),
  };
}

const connect = (role: string): RedisClient => redis.connect(role, QUICK);

/** Calls of one command so far, from the server's INFO commandstats. */
async function commandCount(command: string): Promise<number> {
  const info = await redis.admin().info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
}

/** One replica: its own command client, subscriber and catalog, as a separate process would have. */
async function startReplica(resyncMs: number, fullLoadMs?: number): Promise<RedisCatalog> {
  const subscriber = redis.subscriber('test-sub', QUICK);
  const catalog = createRedisCatalog({
    client: connect('test-api'),
    subscriber,
    logger,
    resyncMs,
    ...(fullLoadMs === undefined ? {} : { fullLoadMs }),
  });
  catalogs.push(catalog);
  await catalog.start();
  return catalog;
}

/** The ingest side: writes only (never started), on its own connection. */
async function startWriter(): Promise<RedisCatalog> {
  const client = connect('ingest');
  await waitForRedisReady(client, 5000);
  return createRedisCatalog({ client, subscriber: redis.admin(), logger, resyncMs: 60_000 });
}

const listed = (catalog: RedisCatalog, ts: string) => catalog.current().get(ts) !== undefined;

describe('Redis catalog on a real Redis', () => {
  test('publication is atomic and exactly once, even when writers race', async () => {
    const events: string[] = [];
    const listener = redis.subscriber('test-listen');
    listener.on('message', (_channel: string, message: string) => events.push(message));
    await listener.subscribe(CATALOG_EVENTS_CHANNEL);

    const [clientA, clientB] = [connect('writer-a'), connect('writer-b')];
    await Promise.all([waitForRedisReady(clientA, 5000), waitForRedisReady(clientB, 5000)]);
    // Writers only: never started, so their subscriber is unused.
    const writerA = createRedisCatalog({
      client: clientA,
      subscriber: listener,
      logger,
      resyncMs: 60_000,
    });
    const writerB = createRedisCatalog({
      client: clientB,
      subscriber: listener,
      logger,
      resyncMs: 60_000,
    });
    const ts = '202405011200';
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? writerA : writerB).publish(meta(ts))),
    );

    expect(results.filter((r) => r)).toHaveLength(1);
    expect(await redis.admin().zrange(TIMESTAMPS_KEY, 0, -1, 'WITHSCORES')).toEqual([
      ts,
      String(parseTimestamp(ts)! / 1000),
    ]);
    expect(await redis.admin().hgetall(archiveKey(ts))).toEqual({
      size: '1000',
      etag: `"etag-${ts}"`,
      lastModified: String(Date.UTC(2024, 4, 1, 12, 0, 7)),
    });
    await waitFor(() => events.length >= 1, 2000, 'publish event');
    await new Promise((r) => setTimeout(r, 100)); // a duplicate event would have arrived by now
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!)).toMatchObject({ type: 'publish', timestamp: ts, size: 1000 });
    expect(await writerB.list()).toEqual([ts]);
  });

  test('two replicas list a publication through events (resync far off), and drop pruned ones', async () => {
    // A resync period far beyond the test: only the event channel can deliver.
    const [one, two] = await Promise.all([startReplica(60_000), startReplica(60_000)]);
    const writer = await startWriter();
    const seen: CatalogSnapshot[] = [];
    two.subscribe((s) => seen.push(s));
    expect(one.inSync()).toBe(true);
    expect(two.current().timestamps).toEqual([]);

    const started = Date.now();
    expect(await writer.publish(meta('202405011202'))).toBe(true);
    await waitFor(
      () => listed(one, '202405011202') && listed(two, '202405011202'),
      5000,
      'both replicas listing',
    );
    reportFigure('publication listed on both replicas', Date.now() - started);
    expect(two.current().get('202405011202')).toEqual(meta('202405011202'));
    expect(seen).toHaveLength(1);

    await writer.publish(meta('202405011206'));
    await writer.publish(meta('202405011204'));
    await waitFor(
      () => two.current().timestamps.length === 3 && one.current().timestamps.length === 3,
      2000,
      '3 listed',
    );
    expect(one.current().timestamps).toEqual(['202405011206', '202405011204', '202405011202']);

    const pruneStarted = Date.now();
    // Everything before 12:05 leaves; 12:06 stays.
    expect(await writer.prune(Date.UTC(2024, 4, 1, 12, 5))).toEqual([
      '202405011202',
      '202405011204',
    ]);
    await waitFor(
      () => one.current().timestamps.length === 1 && two.current().timestamps.length === 1,
      5000,
      'prune on both replicas',
    );
    reportFigure('prune seen on both replicas', Date.now() - pruneStarted);
    expect(two.current().timestamps).toEqual(['202405011206']);
    expect(await redis.admin().exists(archiveKey('202405011202'))).toBe(0);
    expect(await writer.prune(Date.UTC(2024, 4, 1, 12, 5))).toEqual([]);
  });

  test('a missed event heals at the next resync', async () => {
    const replica = await startReplica(300);
    // Written as the scripts write (the version moves) but no event is ever published: the
    // lost-message case.
    const [ts, kept] = ['202405011210', '202405011212'];
    for (const t of [ts, kept]) {
      await redis
        .admin()
        .hset(archiveKey(t), 'size', '7777', 'etag', '"x"', 'lastModified', '1714564800000');
      await redis.admin().zadd(TIMESTAMPS_KEY, parseTimestamp(t)! / 1000, t);
    }
    await redis.admin().incr(CATALOG_VERSION_KEY);
    await waitFor(() => listed(replica, ts) && listed(replica, kept), 5000, 'healed by resync');
    expect(replica.current().get(ts)?.size).toBe(7777);
    // And a vanished entry disappears the same way (an index emptied entirely is data loss
    // instead: see the Redis-restarted-empty test).
    await redis.admin().zrem(TIMESTAMPS_KEY, ts);
    await redis.admin().del(archiveKey(ts));
    await redis.admin().incr(CATALOG_VERSION_KEY);
    await waitFor(() => !listed(replica, ts), 5000, 'removal healed by resync');
    expect(listed(replica, kept)).toBe(true);
  });

  test('an unchanged version skips the full read and keeps the snapshot; a hand edit still heals', async () => {
    // Only this replica resyncs meanwhile, so the server's command counts are its own.
    await Promise.all(catalogs.map((c) => c.stop()));
    const writer = await startWriter();
    await writer.publish(meta('202405011200'));
    const replica = await startReplica(200, 3000);
    const before = replica.current();
    const snapshots: CatalogSnapshot[] = [];
    replica.subscribe((s) => snapshots.push(s));
    const reads = await commandCount('zrevrange');
    // Several resync periods with nothing changed: no index read, no new snapshot, in sync.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await commandCount('zrevrange')).toBe(reads);
    expect(replica.current()).toBe(before);
    expect(snapshots).toHaveLength(0);
    expect(replica.inSync()).toBe(true);
    // Edited by hand (version untouched): healed by the periodic full read.
    const edited = '202405011214';
    await redis
      .admin()
      .hset(archiveKey(edited), 'size', '5000', 'etag', '"y"', 'lastModified', '1714564800000');
    await redis.admin().zadd(TIMESTAMPS_KEY, parseTimestamp(edited)! / 1000, edited);
    await waitFor(() => listed(replica, edited), 10_000, 'hand edit healed');
    await redis.admin().zrem(TIMESTAMPS_KEY, edited);
    await redis.admin().del(archiveKey(edited));
    await redis.admin().incr(CATALOG_VERSION_KEY);
    await waitFor(() => !listed(replica, edited), 5000, 'hand edit removed');
  });

  test('Redis restarted empty: last good snapshot while down, then the rebuilt index, without restarting replicas', async () => {
    const resyncMs = 300;
    const [one, two] = await Promise.all([startReplica(resyncMs), startReplica(resyncMs)]);
    const ingestClient = connect('ingest');
    await waitForRedisReady(ingestClient, 5000);
    const writer = createRedisCatalog({
      client: ingestClient,
      subscriber: redis.admin(),
      logger,
      resyncMs,
    });
    await writer.publish(meta('202405011220'));
    await writer.publish(meta('202405011222'));
    await waitFor(
      () => two.current().timestamps.length === 2 && one.current().timestamps.length === 2,
      3000,
      'listed',
    );

    await redis.server().kill();
    await waitFor(() => !one.inSync() && !two.inSync(), 5000, 'out of sync while Redis is down');
    // Still serving what it knew.
    expect(one.current().timestamps).toEqual(['202405011222', '202405011220']);
    await expect(writer.publish(meta('202405011224'))).rejects.toThrow();

    await redis.server().restart();
    await waitForRedisReady(ingestClient, 5000);
    // Redis answers with an empty index: data loss, not news. The replicas keep serving what
    // they knew, still out of sync, through several resync periods.
    await new Promise((r) => setTimeout(r, 4 * resyncMs));
    for (const replica of [one, two]) {
      expect(replica.current().timestamps).toEqual(['202405011222', '202405011220']);
      expect(replica.inSync()).toBe(false);
    }

    // The ingest reconciliation republishes; replicas take the rebuilt index and are in sync.
    expect(await writer.publish(meta('202405011222'))).toBe(true);
    expect(await writer.publish(meta('202405011220'))).toBe(true);
    await waitFor(() => one.inSync() && two.inSync(), 5000, 'in sync with the rebuilt index');
    expect(one.current().timestamps).toEqual(['202405011222', '202405011220']);
    expect(two.current().timestamps).toEqual(['202405011222', '202405011220']);
  });

  test('a frozen Redis: requests keep the snapshot, the replica reports out of sync, and recovers', async () => {
    const replica = await startReplica(300);
    const writer = await startWriter();
    await writer.publish(meta('202405011230'));
    await waitFor(() => listed(replica, '202405011230'), 3000, 'listed');

    await redis.server().pause();
    try {
      await waitFor(() => !replica.inSync(), 5000, 'out of sync while Redis hangs');
      expect(replica.current().timestamps).toEqual(['202405011230']);
    } finally {
      await redis.server().resume();
    }
    await waitFor(() => replica.inSync(), 5000, 'in sync again');
    expect(replica.current().timestamps).toEqual(['202405011230']);
  });
});
