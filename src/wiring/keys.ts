/**
 * The one place key stores are opened, both following `config.keys`: the serving side reads
 * through `KeyStore` (`openKeyStore`, for every replica), administrators write through
 * `KeyAdminStore` (`openKeyAdmin`, for `npm run keys` and the stack's demo key).
 */
import fs from 'node:fs/promises';
import { createFileKeyAdminStore } from '../adapters/fs/key-admin';
import { readKeyFile } from '../adapters/fs/key-file';
import { createFileKeyStore } from '../adapters/fs/key-store';
import { readRedisRegistry } from '../adapters/redis/key-registry';
import { closeRedisClient, createRedisClient } from '../adapters/redis/client';
import { createRedisKeyAdminStore } from '../adapters/redis/key-admin';
import { createRedisKeyStore } from '../adapters/redis/key-store';
import type { KeysBackend, RedisBackend } from '../config';
import type { KeyRegistryData } from '../domain/key-records';
import type { KeyAdminStore, KeyStore } from '../domain/key-ports';
import { createLogger, type Logger } from '../logger';
import type { RedisWiring } from './redis';

/**
 * Opens the serving side's key store. A configured key file that does not exist is a start-up
 * error; `redis` opens the replica's shared Redis connections on first use.
 */
export async function openKeyStore(
  backend: KeysBackend,
  defaultLimit: number,
  logger: Logger,
  options: { readonly redis: (backend: RedisBackend) => RedisWiring; readonly pollMs?: number },
): Promise<KeyStore> {
  if (backend.kind === 'file') {
    const file = backend.path;
    if (!(await fs.stat(file).catch(() => undefined))) {
      throw new Error(
        `key file ${file} does not exist (RADAR_KEYS_FILE); create it with npm run keys`,
      );
    }
    return createFileKeyStore({
      file,
      defaultLimit,
      logger,
      pollMs: options.pollMs,
    });
  }
  const redis = options.redis(backend);
  return createRedisKeyStore({
    client: redis.client,
    subscriber: redis.subscriber(),
    defaultLimit,
    logger: logger.child({ component: 'keys' }),
    resyncMs: backend.resyncS * 1000,
  });
}

/**
 * Reads the registry as it is now (the admin listener's usage report needs each key's apps and
 * limit): the key file, or the Redis registry on the replica's shared connection.
 */
export function keyRegistryReader(
  backend: KeysBackend,
  redis: (backend: RedisBackend) => RedisWiring,
): () => Promise<KeyRegistryData> {
  if (backend.kind === 'file') return () => readKeyFile(backend.path);
  const { client } = redis(backend);
  return async () => (await readRedisRegistry(client))?.data ?? { apps: [], keys: [] };
}

export interface KeyAdmin {
  readonly store: KeyAdminStore;
  /** Where the registry lives, for messages. */
  readonly describe: string;
  /** Whether a registry exists there yet (a key file that is missing does not). */
  exists(): Promise<boolean>;
  close(): Promise<void>;
}

/** Opens the admin store of `backend` (Redis commands wait at least 2 s: an operator waits). */
export function openKeyAdmin(backend: KeysBackend): KeyAdmin {
  if (backend.kind === 'file') {
    return {
      store: createFileKeyAdminStore(backend.path),
      describe: `key file ${backend.path}`,
      exists: () =>
        fs.stat(backend.path).then(
          () => true,
          () => false,
        ),
      close: async () => {},
    };
  }
  const client = createRedisClient(backend.url, {
    role: 'keys',
    logger: createLogger('warn'),
    commandTimeoutMs: Math.max(backend.timeoutMs, 2000),
  });
  return {
    store: createRedisKeyAdminStore(client),
    describe: 'the Redis key registry',
    exists: async () => true,
    close: () => closeRedisClient(client),
  };
}
