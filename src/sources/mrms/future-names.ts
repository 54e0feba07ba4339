/**
 * Feed files named past the clock. A file's name is its valid time, a few minutes in the past
 * when it lands, so a name hours ahead is a mistake or an attack, never a frame yet: it is
 * skipped, counted once while it stays listed, and never lets it hide the files after it (it
 * takes no place in the window of newest files).
 */
import type { FeedFile } from '../../domain/producer-ports';

export interface FutureNameFilter {
  /** Files to ask the feed for beyond the window: as many as names from the future it held. */
  extra(window: number): number;
  /**
   * The newest `window` of `files` (newest first) named no later than the clock allows;
   * calls `onFuture` for each name from the future not seen in the listing before.
   */
  present(files: readonly FeedFile[], window: number): FeedFile[];
}

export function createFutureNameFilter(options: {
  /** How far past the clock a name may be. */
  readonly toleranceMs: number;
  readonly now: () => number;
  readonly onFuture: (file: FeedFile) => void;
}): FutureNameFilter {
  /** Keys of the last listing named past the clock. */
  let future = new Set<string>();
  return {
    extra: (window) => Math.min(future.size, window),
    present(files, window) {
      const latestMs = options.now() + options.toleranceMs;
      const seen = future;
      future = new Set();
      const present: FeedFile[] = [];
      for (const file of files) {
        if (file.timeMs <= latestMs) {
          present.push(file);
          continue;
        }
        future.add(file.key);
        if (!seen.has(file.key)) options.onFuture(file);
      }
      return present.slice(0, window);
    },
  };
}
