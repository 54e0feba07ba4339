/**
 * The key file as an admin store for `npm run keys` (embedded mode, or `RADAR_KEYS_FILE`).
 */
import type { KeyRegistryData } from '../../domain/key-records';
import type { KeyAdminStore } from '../../domain/key-ports';
import { readKeyFile, writeKeyFile } from './key-file';

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
