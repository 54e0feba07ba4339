/**
 * Replacing a file that other processes read (the key file, the usage file): the text goes to a
 * temp file beside it (`.<name>.<random hex>.tmp`, mode 0600, as both hold what only the
 * service's user may read) and is renamed over it, so a reader never sees half a file and a
 * crash leaves the last complete one.
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `text` to `file` atomically (temp file + rename), creating its directory if needed.
 * Resolves with the written file's stat, taken before the rename (a rename keeps inode, size
 * and mtime), so it describes this write even if another writer replaces the file right after.
 */
export async function writeFileAtomic(file: string, text: string): Promise<Stats> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  await fs.writeFile(temp, text, { mode: 0o600 });
  const written = await fs.stat(temp);
  await fs.rename(temp, file);
  return written;
}
