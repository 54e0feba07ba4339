/**
 * Keys in Redis on a real Redis: the admin store's round trip and optimistic locking, and the
 * serving key store on two replicas — a revocation reaches the other replica through the event channel, and
 * the last good registry survives a Redis outage and a Redis restarted without data.
 */
import { waitForRedisReady, type RedisClient } from '../../src/adapters/redis/client';
import { createRedisKeyStore } from '../../src/adapters/redis/key-store';
import { KEY_EVENTS_CHANNEL, KEY_REGISTRY_KEY } from '../../src/adapters/redis/keys';
import type { KeyRegistryData } from '../../src/domain/key-records';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFileKeyAdminStore } from '../../src/adapters/fs/key-admin';
import {
  KeyAdminConflictError,
  type KeyAdminStore,
  type KeyStore,
} from '../../src/domain/key-ports';
import * as commands from '../../src/keys/key-commands';
import { createRedisKeyAdminStore } from '../../src/adapters/redis/key-admin';
import { createSilentLogger } from '../../src/logger';
import { useRedis } from '../harness/redis-fixture';
import { reportFigure, waitFor } from '../harness/wait';

const logger = createSilentLogger();
const API_KEY = 'rk_test-key-0123456789';
const stores: KeyStore[] = [];
const tempDirs: string[] = [];
/** Quick reconnects, so that the restart test sees Redis again soon. */
const QUICK = { maxReconnectDelayMs: 200 };
const redis = useRedis({
  flushAfterEach: true,
  admin: { commandTimeoutMs: 500, ...QUICK },
  afterEachTest: () => Promise.all(stores.splice(0).map((s) => s.close())),
});

const connect = (role: string): RedisClient => redis.connect(role, QUICK);

/** One replica's key store on its own connections. */
async function replica(resyncMs = 60_000): Promise<KeyStore> {
  const subscriber = redis.subscriber('test-sub', QUICK);
  const store = await createRedisKeyStore({
    client: connect('test-api'),
    subscriber,
    defaultLimit: 100,
    logger,
    resyncMs,
  });
  stores.push(store);
  return store;
}

function seed(data: KeyRegistryData): KeyRegistryData {
  return commands.createKey(
    commands.createApp(data, 'acme-web'),
    'acme',
    ['acme-web'],
    API_KEY,
    25,
  );
}

afterAll(async () => {
  await Promise.all(tempDirs.map((d) => fs.rm(d, { recursive: true, force: true })));
});

describe('keys in Redis on a real Redis', () => {
  test('admin store: save/load round trip, change announced, optimistic locking', async () => {
    const events: string[] = [];
    const listener = redis.subscriber('test-listen');
    listener.on('message', (channel: string) => events.push(channel));
    await listener.subscribe(KEY_EVENTS_CHANNEL);

    const cli = createRedisKeyAdminStore(redis.admin());
    expect(await cli.load()).toEqual({ apps: [], keys: [] });
    const data = seed(await cli.load());
    await cli.save(data);
    expect(await createRedisKeyAdminStore(redis.admin()).load()).toEqual(data);
    expect(JSON.parse((await redis.admin().get(KEY_REGISTRY_KEY))!)).toEqual(data);
    await waitFor(() => events.length === 1, 2000, 'change event');
    // Only hashes are stored.
    expect(await redis.admin().get(KEY_REGISTRY_KEY)).not.toContain(API_KEY);

    // Two administrators load the same registry; the second save must not overwrite the first.
    const first = createRedisKeyAdminStore(redis.admin());
    const second = createRedisKeyAdminStore(redis.admin());
    const base1 = await first.load();
    const base2 = await second.load();
    await first.save(commands.createApp(base1, 'first-app'));
    await expect(second.save(commands.createApp(base2, 'second-app'))).rejects.toBeInstanceOf(
      KeyAdminConflictError,
    );
    // update() retries on fresh data, so both changes survive.
    await second.update((d) => commands.createApp(d, 'second-app'));
    expect((await cli.load()).apps.map((a) => a.id)).toEqual([
      'acme-web',
      'first-app',
      'second-app',
    ]);
    // An operator error inside update saves nothing.
    await expect(second.update((d) => commands.createApp(d, 'first-app'))).rejects.toThrow(
      /exists already/,
    );
    expect((await cli.load()).apps).toHaveLength(3);
  });

  test('a revocation reaches the other replica through the event (figure reported)', async () => {
    await createRedisKeyAdminStore(redis.admin()).update(seed);
    const [one, two] = [await replica(), await replica()];
    expect(await one.authenticate(API_KEY, 'acme-web')).toEqual({
      outcome: 'allowed',
      keyId: 'acme',
      appId: 'acme-web',
      limit: 25,
    });
    expect(await two.authenticate('rk_unknown', 'acme-web')).toMatchObject({
      outcome: 'unauthenticated',
    });

    const started = Date.now();
    await createRedisKeyAdminStore(connect('keys-cli')).update((d) =>
      commands.setKeyDisabled(d, 'acme', true),
    );
    await waitFor(
      async () => (await two.authenticate(API_KEY, 'acme-web')).outcome === 'forbidden',
      5000,
      'revoked on replica two',
    );
    reportFigure('revocation seen on the other replica', Date.now() - started);
    expect(await one.authenticate(API_KEY, 'acme-web')).toMatchObject({
      outcome: 'forbidden',
      reason: 'key-disabled',
    });
  });

  test('the last good registry stays in force while Redis is down and after it restarts empty', async () => {
    await createRedisKeyAdminStore(redis.admin()).update(seed);
    const store = await replica(200);
    expect((await store.authenticate(API_KEY, 'acme-web')).outcome).toBe('allowed');

    await redis.server().kill();
    await new Promise((r) => setTimeout(r, 500)); // a few failed reloads
    expect((await store.authenticate(API_KEY, 'acme-web')).outcome).toBe('allowed');

    await redis.server().restart();
    await waitForRedisReady(redis.admin(), 5000);
    await new Promise((r) => setTimeout(r, 500)); // reloads that find no registry at all
    expect((await store.authenticate(API_KEY, 'acme-web')).outcome).toBe('allowed');

    // An explicitly saved registry, even an empty one, is the operator's word.
    await createRedisKeyAdminStore(redis.admin()).save({ apps: [], keys: [] });
    await waitFor(
      async () => (await store.authenticate(API_KEY, 'acme-web')).outcome === 'unauthenticated',
      3000,
      'empty registry in force',
    );
  });

  test('a replica refuses to start on an invalid registry, and keeps the last good one when it turns invalid later', async () => {
    await redis.admin().set(KEY_REGISTRY_KEY, '{"keys": [{"id": "x"}]}');
    await expect(replica()).rejects.toThrow(/key registry/);
    // The admin store refuses to build on it too, rather than silently discarding it.
    await expect(createRedisKeyAdminStore(redis.admin()).load()).rejects.toThrow(/invalid/);

    await redis.admin().del(KEY_REGISTRY_KEY);
    await createRedisKeyAdminStore(redis.admin()).update(seed);
    const store = await replica(200);
    await redis.admin().set(KEY_REGISTRY_KEY, 'not json');
    await redis.admin().publish(KEY_EVENTS_CHANNEL, 'changed');
    await new Promise((r) => setTimeout(r, 400));
    expect((await store.authenticate(API_KEY, 'acme-web')).outcome).toBe('allowed');
  });
});

describe.each([
  [
    'key file',
    async (): Promise<KeyAdminStore> => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-keys-'));
      tempDirs.push(dir);
      return createFileKeyAdminStore(path.join(dir, 'sub', 'keys.json'));
    },
  ],
  ['Redis', async (): Promise<KeyAdminStore> => createRedisKeyAdminStore(redis.admin())],
])('admin store contract: %s', (_name, make) => {
  test('starts empty, round-trips, and update() applies an edit', async () => {
    const store = await make();
    expect(await store.load()).toEqual({ apps: [], keys: [] });
    const data = seed(await store.load());
    await store.save(data);
    expect(await store.load()).toEqual(data);
    const updated = await store.update((d) => commands.setKeyDisabled(d, 'acme', true));
    expect(updated.keys[0]?.disabled).toBe(true);
    expect(await store.load()).toEqual(updated);
  });
});
