/**
 * Key store backed by the key file. The file is polled for changes (a rename-replace, an
 * in-place edit or a new mount all show up in stat) and re-read within `pollMs`; a file that
 * fails to parse is reported and the last good registry stays in force.
 */
import { unwatchFile, watchFile, type Stats } from 'node:fs';
import { createKeyRegistry, type KeyRegistry } from '../../domain/key-registry';
import type { KeyStore } from '../../domain/key-ports';
import type { Logger } from '../../logger';
import { readKeyFile } from './key-file';

export interface FileKeyStoreOptions {
  readonly file: string;
  readonly defaultLimit: number;
  readonly logger: Logger;
  /** Stat polling interval; changes take effect within about this long. */
  readonly pollMs?: number;
}

/** Loads the key file (rejecting when it is missing or invalid) and starts watching it. */
export async function createFileKeyStore(options: FileKeyStoreOptions): Promise<KeyStore> {
  const { file, defaultLimit, logger } = options;
  let registry: KeyRegistry = createKeyRegistry(await readKeyFile(file), defaultLimit);

  const onChange = (current: Stats, previous: Stats) => {
    if (
      current.mtimeMs === previous.mtimeMs &&
      current.ino === previous.ino &&
      current.size === previous.size
    ) {
      return;
    }
    readKeyFile(file).then(
      (data) => {
        registry = createKeyRegistry(data, defaultLimit);
        logger.info({ file, keys: data.keys.length, apps: data.apps.length }, 'key file reloaded');
      },
      (err: Error) =>
        logger.error(
          { file, err: err.message },
          'key file reload failed; keeping the last good keys',
        ),
    );
  };
  watchFile(file, { interval: options.pollMs ?? 500, persistent: false }, onChange);

  return {
    authenticate(apiKey, appId) {
      return registry.decide(apiKey, appId);
    },
    async close() {
      unwatchFile(file, onChange);
    },
  };
}
