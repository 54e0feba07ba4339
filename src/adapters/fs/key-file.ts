/**
 * The key file on disk: read and parsed with the registry format of `keys/key-file-format.ts`,
 * written atomically for the key CLI. Shared by the file key store and the file admin store.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { KeyRegistryData } from '../../domain/key-records';
import { parseKeyFile, serializeKeyFile } from '../../keys/key-file-format';

/** Reads and parses a key file. */
export async function readKeyFile(file: string): Promise<KeyRegistryData> {
  return parseKeyFile(await fs.readFile(file, 'utf8'));
}

/** Writes a key file atomically (temp file + rename) so readers never see half a file. */
export async function writeKeyFile(file: string, data: KeyRegistryData): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  await fs.writeFile(temp, serializeKeyFile(data), { mode: 0o600 });
  await fs.rename(temp, file);
}
