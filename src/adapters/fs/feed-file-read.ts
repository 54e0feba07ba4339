/**
 * Reading one file of a directory feed without trusting it: the path is resolved and must lie
 * inside the feed's root (a link to `/dev/zero` or `/etc` is refused unread); it is opened
 * non-blocking and without following a final link, so opening a FIFO cannot hang; only a
 * regular file is read, and the read is bounded by a byte count (never by the size `stat`
 * reports: a device reports 0) and by a deadline.
 */
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { FeedFileError } from '../../domain/producer-ports';
import { withDeadline } from '../../shared/deadline';
import { isMissingFile } from './read-errors';

const CHUNK_BYTES = 1024 * 1024;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/** True when `target` is `root` itself or below it. */
export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** What kind of non-regular file `stat` describes, for the refusal's message. */
function kindOf(stat: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }) {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  return 'a device or other special file';
}

/**
 * The bytes of the feed file `key`, whose real path must lie under `realRoot` (the root's own
 * real path). Rejects with `FeedFileError` (`missing`, `not-a-file`, `too-large`) for what no
 * retry changes, with a `DeadlineError` when the file system does not answer within
 * `timeoutMs` (the pending call is abandoned, its handle closed when it returns).
 */
export async function readFeedFile(
  realRoot: string,
  key: string,
  maxBytes: number,
  timeoutMs: number,
): Promise<Buffer> {
  const deadlineAt = Date.now() + timeoutMs;
  const within = <T>(work: Promise<T>, what: string) =>
    withDeadline(work, Math.max(1, deadlineAt - Date.now()), `${what} ${key}`);
  let real: string;
  let handle: fs.FileHandle;
  try {
    real = await within(fs.realpath(key), 'resolving');
    if (!isInside(realRoot, real))
      throw new FeedFileError(key, 'not-a-file', `leads to ${real}, outside the feed directory`);
    handle = await within(fs.open(real, OPEN_FLAGS), 'opening');
  } catch (error) {
    if (isMissingFile(error)) throw new FeedFileError(key, 'missing', 'the file is gone');
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new FeedFileError(key, 'not-a-file', 'a loop of links');
    throw error;
  }
  let hung = false;
  try {
    const stat = await within(handle.stat(), 'checking');
    if (!stat.isFile())
      throw new FeedFileError(key, 'not-a-file', `${kindOf(stat)}, not a regular file`);
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - size));
      const { bytesRead } = await within(handle.read(chunk, 0, chunk.length, null), 'reading');
      if (bytesRead === 0) return Buffer.concat(chunks, size);
      size += bytesRead;
      if (size > maxBytes) throw new FeedFileError(key, 'too-large', `more than ${maxBytes} bytes`);
      chunks.push(chunk.subarray(0, bytesRead));
    }
  } catch (error) {
    hung = (error as Error).name === 'DeadlineError';
    throw error;
  } finally {
    // A handle with a call still pending closes only when the call returns: never wait for it.
    const closing = handle.close().catch(() => undefined);
    if (!hung) await closing;
  }
}
