/**
 * The follower's download of one feed file: retried a few times with backoff on transport
 * failures (then left for the next pass), refused for this version when the feed refuses the
 * file itself (gone, too large, not a regular file: no retry helps), abandoned at stop.
 */
import { FeedFileError, type FeedFile, type FileFeed } from '../../domain/producer-ports';
import type { Logger } from '../../logger';
import { backoffMs } from '../../shared/backoff';
import { FEED_REFUSAL, type MrmsFailureReason, type RetryPolicy } from './mrms-follower-contract';

export interface FeedDownloadOptions {
  readonly feed: FileFeed;
  readonly retry: RetryPolicy;
  readonly maxFileBytes: number;
  readonly logger: Logger;
  /** Settles at stop: a read still pending then is abandoned. */
  readonly halted: Promise<undefined>;
  readonly pause: (ms: number) => Promise<void>;
  /** Whether the follower still works (not stopped, still the leader). */
  readonly working: () => boolean;
  /** Refuses the file for this version, counted and logged. */
  readonly skip: (file: FeedFile, reason: MrmsFailureReason, problem: string) => Promise<void>;
  readonly fail: (reason: MrmsFailureReason) => void;
}

/** The bytes of a file, or `undefined` when it was refused, left for later, or stopped. */
export function createFeedDownload(
  options: FeedDownloadOptions,
): (file: FeedFile) => Promise<Buffer | undefined> {
  const { feed, retry, maxFileBytes, logger, halted, pause, working, skip, fail } = options;
  return async (file) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await Promise.race([feed.read(file, maxFileBytes), halted]);
      } catch (error) {
        if (error instanceof FeedFileError) {
          await skip(file, FEED_REFUSAL[error.reason], error.message);
          return undefined;
        }
        fail('source');
        if (attempt >= retry.attempts || !working()) {
          logger.warn(
            { file: file.key, err: (error as Error).message, attempts: attempt },
            'mrms download failed; retrying at the next pass',
          );
          return undefined;
        }
        await pause(backoffMs(attempt, retry.baseMs, retry.maxMs));
        if (!working()) return undefined;
      }
    }
  };
}
