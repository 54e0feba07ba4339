/**
 * A local directory as the MRMS follower's feed: every `MRMS_{product}_{time}.grib2.gz` below
 * it, at any depth (a copy of NOAA's day folders, a mount, files dropped in by hand). Other
 * files, other products and hidden names (partial downloads) are left alone.
 *
 * Nothing in the directory is trusted: the walk never follows a link to a directory nor goes
 * past its caps (`feed-walk.ts`), a file is read only when it is a regular file inside the
 * root, bounded by bytes and time (`feed-file-read.ts`), and a file modified in the last
 * `settleMs` is left for a later pass (it is probably still being written). Each listed file
 * carries its size and mtime as its version, so one refused while incomplete is tried again
 * once it changes.
 */
import fs from 'node:fs/promises';
import type { FeedFile, FileFeed } from '../../domain/producer-ports';
import { withDeadline } from '../../shared/deadline';
import { feedFile, newestFirst, parseMrmsFileName } from './mrms-file-name';
import { readFeedFile } from '../../adapters/fs/feed-file-read';
import {
  DEFAULT_FEED_WALK_LIMITS,
  walkFeed,
  type FeedWalkLimits,
} from '../../adapters/fs/feed-walk';
import { isMissingFile } from '../../adapters/fs/read-errors';

/** Options of {@link createDirectoryFileFeed}. */
export interface DirectoryFeedOptions {
  readonly dir: string;
  readonly productLevel: string;
  /** Caps of each listing (depth, entries, time); defaults in `feed-walk.ts`. */
  readonly walk?: Partial<FeedWalkLimits>;
  /** Longest read of one file (default 30 s). */
  readonly readTimeoutMs?: number;
  /** A file modified more recently than this is not listed yet (default 2 s). */
  readonly settleMs?: number;
  /** The clock (epoch ms), for tests. */
  readonly now?: () => number;
}

/** Reads `dir` on every `newest`, so files added at any time are seen. */
export function createDirectoryFileFeed(options: DirectoryFeedOptions): FileFeed {
  const { dir, productLevel } = options;
  const walk: FeedWalkLimits = { ...DEFAULT_FEED_WALK_LIMITS, ...options.walk };
  const readTimeoutMs = options.readTimeoutMs ?? 30_000;
  const settleMs = options.settleMs ?? 2000;
  const now = options.now ?? Date.now;
  const realRoot = () => withDeadline(fs.realpath(dir), walk.timeoutMs, `resolving ${dir}`);
  return {
    describe: `directory ${dir}`,
    async newest(count) {
      const root = await realRoot();
      const keep = (name: string) => parseMrmsFileName(name) !== undefined;
      const named: FeedFile[] = [];
      for (const entry of await walkFeed(root, walk, keep)) {
        const file = feedFile(entry.path, entry.name, productLevel);
        if (file) named.push(file);
      }
      // Only the newest are looked at (`stat`, bounded like the walk): at most `2 * count`.
      const files: FeedFile[] = [];
      for (const file of newestFirst(named).slice(0, 2 * count)) {
        if (files.length === count) break;
        let stat;
        try {
          stat = await withDeadline(fs.stat(file.key), walk.timeoutMs, `checking ${file.key}`);
        } catch (error) {
          if (isMissingFile(error)) continue; // gone since the walk
          files.push(file); // a link loop or an unreadable entry: the read refuses it, counted
          continue;
        }
        if (now() - stat.mtimeMs < settleMs) continue; // still being written: a later pass
        files.push({ ...file, version: `${stat.size}:${stat.mtimeMs}:${stat.ino}` });
      }
      return files;
    },
    async read(file, maxBytes) {
      return readFeedFile(await realRoot(), file.key, maxBytes, readTimeoutMs);
    },
  };
}
