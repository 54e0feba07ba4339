/**
 * The key file on disk: read and parsed with the registry format of `keys/key-file-format.ts`,
 * written atomically for the key CLI. Shared by the file key store and the file admin store.
 */
import fs from 'node:fs/promises';
import type { KeyRegistryData } from '../../domain/key-records';
import { parseKeyFile, serializeKeyFile } from '../../keys/key-file-format';
import { writeFileAtomic } from './atomic-write';

/** Reads and parses a key file. */
export async function readKeyFile(file: string): Promise<KeyRegistryData> {
  return parseKeyFile(await fs.readFile(file, 'utf8'));
}

/** Writes a key file atomically (temp file + rename) so readers never see half a file. */
export async function writeKeyFile(file: string, data: KeyRegistryData): Promise<void> {
  await writeFileAtomic(file, serializeKeyFile(data));
}
