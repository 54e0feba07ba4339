/**
 * What the MRMS follower promises and needs: its options, the events it reports (the metrics
 * listen), the failure reasons they are counted under, and its retry policy. The follower
 * itself is `mrms-follower.ts`.
 */
import type { LeaderLease } from '../../domain/ports';
import type {
  FeedFileError,
  FileFeed,
  FileVerdictStore,
  FrameSink,
} from '../../domain/producer-ports';
import type { Logger } from '../../logger';
import type { FlagPairing, UntypedReason } from './flag-pairing';
import type { PublishedRecallOptions } from './published-recall';
import type { MrmsFrameInput } from './mrms-frame';

/** Why a step failed, as counted by the metrics (`radar_mrms_failures_total{reason}`). */
export const MRMS_FAILURE_REASONS = [
  'source',
  'bad-file',
  'not-reflectivity',
  'conversion',
  'sink',
  'future-name',
] as const;
export type MrmsFailureReason = (typeof MRMS_FAILURE_REASONS)[number];

/** The bad-input classes a conversion reports, and the reason each is counted under. */
export const BAD_INPUT: Readonly<Record<string, MrmsFailureReason>> = {
  Grib2Error: 'bad-file',
  MrmsProductError: 'not-reflectivity',
};

/** How a feed's refusal of one file is counted. */
export const FEED_REFUSAL: Readonly<Record<FeedFileError['reason'], MrmsFailureReason>> = {
  missing: 'source',
  'too-large': 'bad-file',
  'not-a-file': 'bad-file',
};

/** What the follower reports as it works (the metrics listen). */
export interface MrmsFollowerEvents {
  /** A file was converted and published as `timestamp`. */
  onConverted?(frame: {
    readonly timestamp: string;
    readonly seconds: number;
    readonly bytes: number;
    readonly validTimeMs: number;
  }): void;
  /** A file's frame was already published (by an earlier run or another producer). */
  onSkipped?(timestamp: string): void;
  onFailure?(reason: MrmsFailureReason): void;
  /** A frame was published without precipitation type (besides `onConverted`). */
  onUntyped?(reason: UntypedReason): void;
}

/** Retry timing of failed listings and downloads. */
export interface RetryPolicy {
  /** Downloads of one file per pass. */
  readonly attempts: number;
  /** First delay; each further one doubles. */
  readonly baseMs: number;
  /** Longest delay (also the longest pause between passes while the source fails). */
  readonly maxMs: number;
}

export interface MrmsFollowerOptions {
  readonly feed: FileFeed;
  readonly sink: FrameSink;
  /** Converts one file off the event loop (the render pool), rejecting as the pool does. */
  readonly convert: (input: MrmsFrameInput) => Promise<Buffer>;
  /** Frames in flight at once: the pool's size (1 or 2), which bounds memory. */
  readonly concurrency: number;
  readonly logger: Logger;
  /** The newest files kept published. */
  readonly backfill: number;
  /** Pause between passes while all is well. */
  readonly pollMs: number;
  /** Leader lease (several followers, one Redis); without it this follower is the only one. */
  readonly lease?: LeaderLease;
  /** How often the lease is taken or renewed (a third of its TTL). */
  readonly leaseRenewMs?: number;
  /** Largest source file read (an MRMS CONUS file is about 1 MB). */
  readonly maxFileBytes?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly events?: MrmsFollowerEvents;
  /**
   * Where verdicts on files outlive the process (beside the lease: Redis, or a file beside the
   * archives); in memory when absent.
   */
  readonly verdicts?: FileVerdictStore;
  /** Conversion failures (not bad input) of one file before it is given up. */
  readonly conversionAttempts?: number;
  /**
   * How far past the clock a file's name may be (default {@link DEFAULT_FUTURE_TOLERANCE_MS}):
   * a file named later is not a frame yet, whatever it holds; it is counted (`future-name`)
   * and skipped, and never hides the files after it.
   */
  readonly futureToleranceMs?: number;
  /** Clock, epoch ms. */
  readonly now?: () => number;
  /**
   * Pairs each frame with its PrecipFlag file (follow mode's typing); absent: frames are
   * converted untyped at once.
   */
  readonly pairing?: FlagPairing;
  /**
   * Called after each frame this follower publishes, with its archive timestamp and the input
   * it was converted from (the nowcast reads its base frames from it). `convert` must leave
   * `input`'s buffers usable (send the pool a copy) when this is set.
   */
  readonly onPublished?: (timestamp: string, input: MrmsFrameInput) => void;
  /**
   * Frames found already published that are still needed (a nowcast's earlier frames after a
   * restart): read back from the feed in the background, never converted (published-recall.ts).
   */
  readonly recall?: PublishedRecallOptions;
}

export interface MrmsFollower {
  /**
   * Starts following. Resolves once the first pass is over (the backfill published, or the
   * source found unreachable), or at once when another follower holds the lease. Idempotent.
   */
  start(): Promise<void>;
  /** Stops after the frames in flight; releases the lease. Idempotent. */
  stop(): Promise<void>;
  isLeader(): boolean;
  /** Valid time of the newest frame this follower published or found published (epoch ms). */
  newestValidTimeMs(): number | undefined;
}

/** An MRMS CONUS file is about 1 MB compressed; 64 MiB leaves room for any MRMS product. */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A file's name is its valid time, a few minutes in the past when it lands; 15 minutes ahead
 * of the producer's clock leaves room for a clock somewhat behind and none for a name from
 * hours later.
 */
export const DEFAULT_FUTURE_TOLERANCE_MS = 15 * 60_000;

/** Downloads tried 3 times a pass (1 s, 2 s between), listings backed off up to 60 s. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseMs: 1000, maxMs: 60_000 };
