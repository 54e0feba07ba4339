/**
 * Where `npm run keys` reads and writes the key registry: the key file (embedded mode, or
 * `RADAR_KEYS_FILE`) or Redis (`redis-key-admin.ts`). The CLI edits registry data with the
 * pure commands of `key-commands.ts` and persists the result through this interface, so the
 * commands behave the same whichever store is configured.
 */
import { readKeyFile, writeKeyFile } from '../adapters/fs/key-file';
import type { KeyRegistryData } from '../domain/key-registry';

/** A registry store for administration (the serving side uses a `KeyStore`). */
export interface KeyAdminStore {
  /** The current registry; an empty one when none exists yet. */
  load(): Promise<KeyRegistryData>;
  /**
   * Stores `data`. Stores that can detect concurrent changes reject with
   * `KeyAdminConflictError` when the registry changed since this store's last `load()`.
   */
  save(data: KeyRegistryData): Promise<void>;
  /**
   * Loads, applies `edit` and saves, retrying on a conflict, so two administrators never lose
   * each other's change. `edit` may throw (an operator error); nothing is saved then.
   */
  update(edit: (data: KeyRegistryData) => KeyRegistryData): Promise<KeyRegistryData>;
}

/** The registry changed between load and save; the edit should be made again on fresh data. */
export class KeyAdminConflictError extends Error {
  override readonly name = 'KeyAdminConflictError';
}

const EMPTY: KeyRegistryData = { apps: [], keys: [] };

/**
 * The key file as an admin store. Writes are atomic (temp file + rename) so a serving replica
 * never reads half a file; concurrent administrators are not detected (one operator edits a
 * file at a time), and a missing file loads as an empty registry so the first command creates it.
 */
export function createFileKeyAdminStore(file: string): KeyAdminStore {
  const load = async (): Promise<KeyRegistryData> => {
    try {
      return await readKeyFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY;
      throw err;
    }
  };
  const save = (data: KeyRegistryData) => writeKeyFile(file, data);
  return {
    load,
    save,
    async update(edit) {
      const next = edit(await load());
      await save(next);
      return next;
    },
  };
}
