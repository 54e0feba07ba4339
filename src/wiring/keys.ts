/**
 * The one place key stores are opened: the serving side reads through `KeyStore` (see
 * `replica-parts.ts`), administrators write through `KeyAdminStore` (this file, for
 * `npm run keys` and the stack's demo key). Both follow `config.keys`.
 */
import fs from 'node:fs/promises';
import { closeRedisClient, createRedisClient } from '../adapters/redis/client';
import { createRedisKeyAdminStore } from '../adapters/redis/key-admin';
import type { Config, KeysBackend } from '../config';
import { createFileKeyAdminStore, type KeyAdminStore } from '../keys/key-admin-store';
import { createLogger } from '../logger';

export interface KeyAdmin {
  readonly store: KeyAdminStore;
  /** Where the registry lives, for messages. */
  readonly describe: string;
  /** Whether a registry exists there yet (a key file that is missing does not). */
  exists(): Promise<boolean>;
  close(): Promise<void>;
}

/** Opens the admin store of `backend` (Redis commands wait up to `commandTimeoutMs`). */
export function openKeyAdmin(
  backend: KeysBackend,
  config: Pick<Config, 'redisTimeoutMs'>,
): KeyAdmin {
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
    commandTimeoutMs: Math.max(config.redisTimeoutMs, 2000),
  });
  return {
    store: createRedisKeyAdminStore(client),
    describe: 'the Redis key registry',
    exists: async () => true,
    close: () => closeRedisClient(client),
  };
}
