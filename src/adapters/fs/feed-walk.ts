/**
 * The bounded walk of a directory feed: every entry below the feed's root that could be a
 * feed file, without ever leaving the root. Sub-directories are entered only when they are
 * real directories (a symbolic link to a directory, `.`, `..` or `/` is never followed, so no
 * loop and no escape exists), the depth and the number of entries are capped, and the whole
 * walk has a deadline, so a hostile or broken tree costs bounded memory and time.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { withDeadline } from '../../shared/deadline';

/** Caps of one walk. */
export interface FeedWalkLimits {
  /** Directory levels below the root entered (NOAA's layout needs 1: day folders). */
  readonly maxDepth: number;
  /** Entries read in all, files and directories: past it the listing fails. */
  readonly maxEntries: number;
  /** The whole walk, every directory read included. */
  readonly timeoutMs: number;
}

/**
 * Defaults: 8 levels, 200,000 entries (a year of 2-minute files is 263,000; a feed keeps
 * days, not years), 30 s.
 */
export const DEFAULT_FEED_WALK_LIMITS: FeedWalkLimits = Object.freeze({
  maxDepth: 8,
  maxEntries: 200_000,
  timeoutMs: 30_000,
});

/** A non-directory entry: a regular file, a link or a special file (the reader decides). */
export interface WalkedEntry {
  readonly path: string;
  readonly name: string;
}

/** The non-directory entries below `root` whose name `keep` accepts. Rejects past a cap. */
export async function walkFeed(
  root: string,
  limits: FeedWalkLimits,
  keep: (name: string) => boolean,
): Promise<WalkedEntry[]> {
  const deadlineAt = Date.now() + limits.timeoutMs;
  const found: WalkedEntry[] = [];
  const pending: Array<{ dir: string; depth: number }> = [{ dir: root, depth: 0 }];
  let entries = 0;
  for (let next = pending.pop(); next; next = pending.pop()) {
    const left = deadlineAt - Date.now();
    const what = `listing ${next.dir}`;
    if (left <= 0) throw new Error(`${what}: the walk took more than ${limits.timeoutMs} ms`);
    const dirents = await withDeadline(fs.readdir(next.dir, { withFileTypes: true }), left, what);
    entries += dirents.length;
    if (entries > limits.maxEntries)
      throw new Error(`${root} holds more than ${limits.maxEntries} entries`);
    for (const dirent of dirents) {
      if (dirent.name.startsWith('.')) continue; // partial downloads; also `.` and `..`
      const full = path.join(next.dir, dirent.name);
      if (dirent.isDirectory()) {
        if (next.depth < limits.maxDepth) pending.push({ dir: full, depth: next.depth + 1 });
      } else if (keep(dirent.name)) {
        found.push({ path: full, name: dirent.name });
      }
    }
  }
  return found;
}
