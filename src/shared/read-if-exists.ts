/**
 * A file's bytes, or undefined when it does not exist: for build outputs a process serves but
 * may start without (the API description, the reference page), whose absence is answered as
 * "not built" rather than as a crash. Any other read error is a real failure and throws.
 */
import fs from 'node:fs';

export function readIfExists(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
