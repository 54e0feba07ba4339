/**
 * Extra keys the tile suites need in a Redis key store: one bound to another app (403 with
 * the stack's app) and two with a small limit (429; one for the observed frame's suite, one
 * for the forecast frame's), added through the key CLI's store.
 */
import type { RedisClient } from '../../src/adapters/redis/client';
import { createRedisKeyAdminStore } from '../../src/adapters/redis/key-admin';
import { hashApiKey } from '../../src/domain/key-registry';
import { request } from './http-client';
import { stackAuth } from './production-stack';
import { waitFor } from './wait';

export const TILE_TEST_KEYS = {
  unbound: { id: 'tiles-unbound', key: 'rk_tiles-unbound-0123456789' },
  limited: { id: 'tiles-limited', key: 'rk_tiles-limited-0123456789', limit: 4 },
  limitedForecast: { id: 'tiles-limited-f', key: 'rk_tiles-limited-f-0123456789', limit: 4 },
} as const;
const OTHER_APP = 'tiles-other-app';

/** Adds the keys and waits until every replica in `baseUrls` knows them. */
export async function addTileTestKeys(client: RedisClient, baseUrls: readonly string[]) {
  await createRedisKeyAdminStore(client).update((data) => ({
    apps: [...data.apps.filter((a) => a.id !== OTHER_APP), { id: OTHER_APP, disabled: false }],
    keys: [
      ...data.keys.filter((k) => !k.id.startsWith('tiles-')),
      {
        id: TILE_TEST_KEYS.unbound.id,
        sha256: hashApiKey(TILE_TEST_KEYS.unbound.key),
        apps: [OTHER_APP],
        disabled: false,
      },
      ...[TILE_TEST_KEYS.limited, TILE_TEST_KEYS.limitedForecast].map((limited) => ({
        id: limited.id,
        sha256: hashApiKey(limited.key),
        apps: data.apps.filter((a) => a.id !== OTHER_APP).map((a) => a.id),
        limit: limited.limit,
        disabled: false,
      })),
    ],
  }));
  for (const url of baseUrls) {
    await waitFor(
      async () =>
        (await request(url, '/no-such-path', { headers: stackAuth(TILE_TEST_KEYS.unbound.key) }))
          .status === 404 &&
        (await request(url, '/status.json', { headers: stackAuth(TILE_TEST_KEYS.unbound.key) }))
          .status === 403,
      10_000,
      `tile test keys known on ${url}`,
      50,
    );
  }
}
