/**
 * Replacing a file that other processes read (the key file, the usage file): the text goes to a
 * temp file beside it (`.<name>.<random hex>.tmp`, mode 0600, as both hold what only the
 * service's user may read) and is renamed over it, so a reader never sees half a file and a
 * crash leaves the last complete one.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Writes `text` to `file` atomically (temp file + rename), creating its directory if needed. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  await fs.writeFile(temp, text, { mode: 0o600 });
  await fs.rename(temp, file);
}
