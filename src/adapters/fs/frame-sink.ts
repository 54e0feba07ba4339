/**
 * Simulator frames written into the data directory: the directory `FrameSink` of embedded
 * mode (the S3 one is `adapters/s3/frame-sink.ts`).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, link, mkdir, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { archiveFileName } from '../../domain/timestamps';
import type { FrameSink } from '../../domain/producer-ports';

/** Checks the errno code by shape, not `instanceof` (fs errors may come from another realm). */
function isErrno(error: unknown, ...codes: string[]): boolean {
  const code =
    typeof error === 'object' && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
  return typeof code === 'string' && codes.includes(code);
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path, constants.F_OK);
    return true;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return false;
    throw error;
  }
}

async function fsyncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    // Some platforms and file systems cannot fsync a directory; the rename is still atomic.
    if (!isErrno(error, 'EISDIR', 'EINVAL', 'EPERM', 'EACCES')) throw error;
  }
}

/**
 * Sink writing `{dir}/{YYYYMMDDHHmm}.pmtiles`, creating `dir` if needed. Each archive is
 * written to a hidden temporary file in the same directory, fsynced, then hard-linked to its
 * final name, which fails instead of replacing an existing archive (a rename would silently
 * overwrite one); file systems without hard links fall back to check-then-rename.
 * Temporary names start with a dot and do not end in `.pmtiles`, so watchers ignore them.
 */
export function createDirectorySink(dir: string): FrameSink {
  let ready: Promise<unknown> | undefined;

  return {
    has(timestamp) {
      return exists(join(dir, archiveFileName(timestamp)));
    },
    async put(timestamp, bytes) {
      ready ??= mkdir(dir, { recursive: true }).catch((error: unknown) => {
        ready = undefined; // try again on the next put
        throw error;
      });
      await ready;
      const name = archiveFileName(timestamp);
      const final = join(dir, name);
      if (await exists(final)) return;
      const temp = join(dir, `.${name}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
      let tempExists = false;
      try {
        const handle = await open(temp, 'wx');
        tempExists = true;
        try {
          await handle.writeFile(bytes);
          await handle.sync();
        } finally {
          await handle.close();
        }
        try {
          await link(temp, final);
        } catch (error) {
          if (isErrno(error, 'EEXIST')) return; // published meanwhile by someone else
          if (!isErrno(error, 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'ENOSYS')) throw error;
          if (await exists(final)) return;
          await rename(temp, final);
          tempExists = false;
        }
        await fsyncDirectory(dir);
      } finally {
        if (tempExists) await unlink(temp).catch(() => undefined);
      }
    },
  };
}
