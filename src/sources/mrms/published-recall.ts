/**
 * Reading back frames already published, for a nowcast that needs them. After a restart the
 * follower finds its newest frames published and does not convert them again; the nowcast's
 * book is empty then, and without the frame 10 minutes before a base it makes no forecasts
 * until ten minutes of new frames have come. The recall reads the files of the frames found
 * published within that window of the newest file listed (at most a window's worth: six files
 * for 10 minutes of 2-minute frames), each once per process, in the background: a pass never
 * waits for it, so new frames are never held up. A file that cannot be read is logged and left
 * (the nowcast then skips that base as it would without the recall).
 */
import { formatTimestamp } from '../../domain/timestamps';
import type { FeedFile, FileFeed } from '../../domain/producer-ports';
import type { Logger } from '../../logger';
import type { MrmsFrameInput } from './mrms-frame';

/** What the follower is told to recall frames for (the nowcast's needs). */
export interface PublishedRecallOptions {
  /** How far before the newest file listed a published frame is still needed (ms). */
  readonly windowMs: number;
  /** A published frame's input, read back from the feed. Must return at once. */
  readonly onRecalled: (timestamp: string, input: MrmsFrameInput) => void;
}

/** The recall of one follower. */
export interface PublishedRecall {
  /** `file` was found published: read back when within the window of the newest listed. */
  offer(file: FeedFile): void;
  /** The pass's listing: the newest file's time, and files no longer listed are forgotten. */
  retain(listed: readonly FeedFile[]): void;
  /** Resolves once the reads in flight are over. */
  settled(): Promise<void>;
}

export function createPublishedRecall(
  options: PublishedRecallOptions,
  feed: FileFeed,
  maxFileBytes: number,
  logger: Logger,
): PublishedRecall {
  const offered = new Set<string>();
  let newestListedMs = Number.NEGATIVE_INFINITY;
  const reading = new Set<Promise<void>>();

  const read = async (file: FeedFile) => {
    try {
      const bytes = await feed.read(file, maxFileBytes);
      options.onRecalled(formatTimestamp(file.timeMs), { name: file.name, bytes });
      logger.debug({ file: file.key }, 'mrms published frame recalled for the nowcast');
    } catch (error) {
      logger.warn(
        { file: file.key, err: (error as Error).message },
        'mrms published frame not recalled for the nowcast',
      );
    }
  };

  return {
    offer(file) {
      if (file.timeMs < newestListedMs - options.windowMs || offered.has(file.key)) return;
      offered.add(file.key);
      const done = read(file).finally(() => reading.delete(done));
      reading.add(done);
    },
    retain(listed) {
      for (const file of listed) newestListedMs = Math.max(newestListedMs, file.timeMs);
      const keys = new Set(listed.map((f) => f.key));
      for (const key of offered) if (!keys.has(key)) offered.delete(key);
    },
    settled: async () => {
      await Promise.all([...reading]);
    },
  };
}
