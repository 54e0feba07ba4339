/**
 * The key registry in Redis as an admin store for `npm run keys`: every save is a
 * compare-and-set against the text read by the last `load()`, and announces the change on the
 * key events channel in the same atomic step, so every replica reloads within milliseconds and
 * two administrators never silently overwrite each other.
 */
import { waitForRedisReady, type RedisClient } from './client';
import { compareAndSetRedisRegistry, readRedisRegistry } from './key-registry';
import type { KeyRegistryData } from '../../domain/key-records';
import { KeyAdminConflictError, type KeyAdminStore } from '../../domain/key-ports';

const EMPTY: KeyRegistryData = { apps: [], keys: [] };
/** Attempts of `update` before giving up on a registry that keeps changing underneath. */
const UPDATE_ATTEMPTS = 5;

/**
 * An admin store over `client` (a command client; its owner closes it). Not shared between
 * concurrent tasks: it remembers the text of its last `load()` (or save) as the
 * compare-and-set token; a `save()` with no `load()` before it checks against the registry
 * read at that moment. Loads wait up to `readyTimeoutMs` (default 5000) for the connection.
 * `load()` rejects with `KeyFileError` when the stored registry is invalid: nothing is
 * silently discarded (repair it with `redis-cli`, or delete the key to start over).
 */
export function createRedisKeyAdminStore(
  client: RedisClient,
  options: { readyTimeoutMs?: number } = {},
): KeyAdminStore {
  /** Text of the last load (null: none stored); undefined before any load. */
  let loadedRaw: string | null | undefined;

  const load = async (): Promise<KeyRegistryData> => {
    // A CLI run starts with a fresh connection; its first command must not beat the handshake.
    await waitForRedisReady(client, options.readyTimeoutMs ?? 5000);
    const stored = await readRedisRegistry(client);
    loadedRaw = stored?.raw ?? null;
    return stored?.data ?? EMPTY;
  };

  const save = async (data: KeyRegistryData): Promise<void> => {
    if (loadedRaw === undefined) await load();
    const stored = await compareAndSetRedisRegistry(client, loadedRaw ?? null, data);
    if (stored === undefined)
      throw new KeyAdminConflictError(
        'the key registry changed meanwhile; load it again and retry',
      );
    loadedRaw = stored; // a further save checks against what this one wrote
  };

  return {
    load,
    save,
    async update(edit) {
      for (let attempt = 1; ; attempt += 1) {
        const next = edit(await load());
        try {
          await save(next);
          return next;
        } catch (err) {
          if (!(err instanceof KeyAdminConflictError) || attempt >= UPDATE_ATTEMPTS) throw err;
        }
      }
    },
  };
}
