/**
 * The key registry in Redis on a real Redis is as strict as the key file: a registry written
 * by hand with a misspelt field, without both arrays, or with a hash of the wrong length is
 * refused by replicas (the last good keys stay in force, one error names the field), as is one
 * with two keys of one hash, two apps of one id, or an id outside the documented alphabet; a replica
 * does not start on it, and the admin store never writes one.
 */
import { createRedisKeyAdminStore } from '../../src/adapters/redis/key-admin';
import { serializeRegistry } from '../../src/adapters/redis/key-registry';
import { createRedisKeyStore } from '../../src/adapters/redis/key-store';
import { KEY_EVENTS_CHANNEL, KEY_REGISTRY_KEY } from '../../src/adapters/redis/keys';
import type { KeyRegistryData } from '../../src/domain/key-records';
import * as commands from '../../src/keys/key-commands';
import type { KeyStore } from '../../src/domain/key-ports';
import { createSilentLogger, type Logger } from '../../src/logger';
import { loggedLines } from '../harness/log-lines';
import { useRedis } from '../harness/redis-fixture';
import { waitFor } from '../harness/wait';

const API_KEY = 'rk_strict-key-0123456789';
const ALLOWED = 'https://maps.acme.org';
const stores: KeyStore[] = [];
const redis = useRedis({
  flushAfterEach: true,
  admin: { commandTimeoutMs: 2000 },
  afterEachTest: () => Promise.all(stores.splice(0).map((s) => s.close())),
});

function seed(data: KeyRegistryData): KeyRegistryData {
  return commands.createKey(
    commands.createApp(data, 'acme-web'),
    'acme',
    ['acme-web'],
    API_KEY,
    25,
    {
      origins: [ALLOWED],
    },
  );
}

async function replica(logger: Logger = createSilentLogger()): Promise<KeyStore> {
  const store = await createRedisKeyStore({
    client: redis.connect('test-api', { logger }),
    subscriber: redis.subscriber('test-sub', { logger }),
    defaultLimit: 100,
    logger,
    resyncMs: 60_000,
  });
  stores.push(store);
  return store;
}

/** Whether the key's decision still carries its origin restriction. */
async function restricted(store: KeyStore): Promise<boolean> {
  const decision = await store.authenticate(API_KEY, 'acme-web');
  return (
    decision.outcome === 'allowed' &&
    decision.originPolicy !== undefined &&
    decision.originPolicy.allows(ALLOWED) &&
    !decision.originPolicy.allows('https://evil.example')
  );
}

it('a registry edited into something invalid keeps the last good keys; one error names the field', async () => {
  await createRedisKeyAdminStore(redis.admin()).update(seed);
  const { lines, logger } = loggedLines();
  const store = await replica(logger);
  expect(await restricted(store)).toBe(true);
  const good = seed({ apps: [], keys: [] });
  const goodText = serializeRegistry(good);

  const invalid: Array<[string, string]> = [
    [goodText.replace('"origins"', '"origin"'), 'keys[0].origin: unknown field'],
    ['{}', 'apps: missing (required)'],
    ['{"apps": []}', 'keys: missing (required)'],
    [goodText.replace('"apps":[{', '"apps":[{"enabled":true,'), 'apps[0].enabled: unknown field'],
  ];
  const sha256 = good.keys[0]!.sha256;
  // Each after another problem: the same message twice in a row is logged once (below).
  for (const wrong of [sha256.slice(0, 63), `${sha256}0`, `${sha256.slice(0, 63)}x`])
    invalid.push(
      [goodText.replace(sha256, wrong), 'keys[0].sha256: sha256 must be exactly 64 hex digits'],
      ['{"keys": []}', 'apps: missing (required)'],
    );

  // Fields that must be unique, and ids outside the documented alphabet (a terminal escape).
  const goodKey = good.keys[0]!;
  const twin = { ...goodKey, id: 'acme-copy', sha256: sha256.toUpperCase(), disabled: true };
  const json = (data: object) => JSON.stringify(data);
  invalid.push(
    [
      json({ apps: good.apps, keys: [...good.keys, twin] }),
      'keys[1].sha256: duplicate key hash (as keys[0])',
    ],
    [
      json({ apps: [...good.apps, { id: 'acme-web', disabled: true }], keys: good.keys }),
      'apps[1].id: duplicate app id acme-web (as apps[0])',
    ],
    [
      json({ apps: good.apps, keys: [{ ...goodKey, id: 'acme\u001b[2J' }] }),
      'keys[0].id: ids use letters, digits',
    ],
    [
      json({ apps: good.apps, keys: [{ ...goodKey, apps: ['acme-web\n'] }] }),
      'keys[0].apps[0]: ids use letters, digits',
    ],
  );

  for (const [text, named] of invalid) {
    const before = lines.length;
    await redis.admin().set(KEY_REGISTRY_KEY, text);
    await redis.admin().publish(KEY_EVENTS_CHANNEL, 'hand-edited');
    await waitFor(
      () =>
        lines
          .slice(before)
          .some(
            (l) =>
              l['msg'] === 'key registry in Redis is invalid; keeping the last good keys' &&
              l['level'] === 50 &&
              String(l['err']).includes(named),
          ),
      5000,
      `error naming ${named}`,
    );
    expect(await restricted(store)).toBe(true);
  }

  // The same invalid registry again is not logged again.
  const before = lines.length;
  await redis.admin().publish(KEY_EVENTS_CHANNEL, 'hand-edited');
  await redis.admin().publish(KEY_EVENTS_CHANNEL, 'hand-edited');
  await new Promise((r) => setTimeout(r, 300));
  expect(lines.slice(before).filter((l) => l['level'] === 50)).toEqual([]);

  // A valid registry loads again.
  const unrestricted = { ...good, keys: good.keys.map((k) => ({ ...k, origins: undefined })) };
  await redis.admin().set(KEY_REGISTRY_KEY, serializeRegistry(unrestricted));
  await redis.admin().publish(KEY_EVENTS_CHANNEL, 'repaired');
  await waitFor(async () => !(await restricted(store)), 5000, 'repaired registry in force');
});

it.each([
  ['{}', 'apps: missing (required)'],
  ['{"apps":[],"keys":[],"extra":1}', 'extra: unknown field'],
])('a replica does not start on the registry %s, and says which field', async (text, named) => {
  await redis.admin().set(KEY_REGISTRY_KEY, text);
  await expect(replica()).rejects.toThrow(named);
});

it('the admin store never writes a registry replicas would refuse', async () => {
  const cli = createRedisKeyAdminStore(redis.admin());
  await cli.update(seed);
  const stored = await redis.admin().get(KEY_REGISTRY_KEY);
  const typo = (data: KeyRegistryData) =>
    ({
      ...data,
      keys: data.keys.map((k) => ({ ...k, origin: k.origins })),
    }) as unknown as KeyRegistryData;
  await expect(cli.update(typo)).rejects.toThrow('keys[0].origin: unknown field');
  expect(await redis.admin().get(KEY_REGISTRY_KEY)).toBe(stored);
  // And it refuses to build on an invalid registry rather than silently repair it.
  await redis.admin().set(KEY_REGISTRY_KEY, '{"apps":[],"keys":[],"typo":true}');
  await expect(cli.load()).rejects.toThrow('typo: unknown field');
});
