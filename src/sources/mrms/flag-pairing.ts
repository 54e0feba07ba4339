/**
 * Follow mode's pairing of reflectivity files with PrecipFlag files: which flag file types a
 * reflectivity file, or whether the follower should wait for one. The flag of a frame is the
 * flag file whose name is nearest in time, at most {@link PAIRING_WINDOW_MS} away (MRMS stamps
 * reflectivity to the second, `-120039`, and the flag to the 2-minute cycle, `-120000`).
 *
 * Waiting never holds anything up: a file whose flag has not come is deferred (`wait`) and
 * offered again at the next pass, its deadline (first seen + the wait) remembered here; once
 * the deadline has passed the frame is published untyped, and the decision says why. A flag
 * that cannot be read (too large, not a regular file) types nothing: the frame is published
 * untyped at once. A flag whose bytes turn out not to be a PrecipFlag frame of the same grid
 * and cycle is judged in the render worker, where it also ends in an untyped frame.
 */
import { FeedFileError, type FeedFile, type FileFeed } from '../../domain/producer-ports';
import type { Logger } from '../../logger';
import type { MrmsArchiveFacts } from './mrms-frame';
import { PAIRING_WINDOW_MS } from './mrms-precip-flag';

/**
 * Why a frame was published without type (`radar_mrms_untyped_frames_total{reason}`): no flag
 * within the wait (`no-flag`), or a flag that could not type it (`bad-flag`).
 */
export const UNTYPED_REASONS = ['no-flag', 'bad-flag'] as const;
export type UntypedReason = (typeof UNTYPED_REASONS)[number];

/** What to do with one reflectivity file now. */
export type FlagDecision =
  /** Its flag has not come and the wait is not over: offer the file again at the next pass. */
  | { readonly wait: true }
  /** Convert it now, with `flag` when there is one, else untyped for `untyped`. */
  | {
      readonly wait: false;
      readonly flag?: { readonly name: string; readonly bytes: Buffer };
      readonly untyped?: { readonly reason: UntypedReason; readonly problem: string };
    };

export interface FlagPairing {
  /** Lists the flag feed: once a pass, before its files are decided. Never rejects. */
  refresh(count: number): Promise<void>;
  /** The decision for `file` (reads the flag file when there is one). Never rejects. */
  decide(file: FeedFile): Promise<FlagDecision>;
  /** Forgets the deadlines of files not among `keys` (settled, or gone from the listing). */
  retain(keys: ReadonlySet<string>): void;
}

export interface FlagPairingOptions {
  /** The flag product's files, in the same source as the reflectivity. */
  readonly feed: FileFeed;
  /** The flag's product and level, for messages (`PrecipFlag_00.00`). */
  readonly product: string;
  /** Longest wait for a frame's flag, from when the follower first sees the frame. */
  readonly waitMs: number;
  /** Largest flag file read. */
  readonly maxFileBytes: number;
  readonly logger: Logger;
  /** Clock, epoch ms. */
  readonly now?: () => number;
}

export function createFlagPairing(options: FlagPairingOptions): FlagPairing {
  const { feed, product, waitMs, maxFileBytes, logger } = options;
  const now = options.now ?? Date.now;
  let listed: readonly FeedFile[] = [];
  /** Epoch ms after which a file is published untyped, per reflectivity key. */
  const deadlines = new Map<string, number>();

  const nearest = (timeMs: number): FeedFile | undefined => {
    let best: FeedFile | undefined;
    for (const flag of listed) {
      const gap = Math.abs(flag.timeMs - timeMs);
      if (gap <= PAIRING_WINDOW_MS && (!best || gap < Math.abs(best.timeMs - timeMs))) best = flag;
    }
    return best;
  };

  return {
    async refresh(count) {
      try {
        listed = await feed.newest(count);
      } catch (error) {
        // The last listing stands; a frame's deadline still runs.
        logger.warn(
          { err: (error as Error).message, feed: feed.describe },
          'mrms flag listing failed',
        );
      }
    },

    async decide(file) {
      let deadline = deadlines.get(file.key);
      if (deadline === undefined) deadlines.set(file.key, (deadline = now() + waitMs));
      const overdue = now() >= deadline;
      const flag = nearest(file.timeMs);
      const untyped = (reason: UntypedReason, problem: string): FlagDecision => {
        deadlines.delete(file.key);
        return { wait: false, untyped: { reason, problem } };
      };
      if (flag === undefined) {
        if (!overdue) return { wait: true };
        return untyped(
          'no-flag',
          `no ${product} file within ${PAIRING_WINDOW_MS / 1000} s of ${file.name} ` +
            `after waiting ${Math.round(waitMs / 1000)} s`,
        );
      }
      try {
        const bytes = await feed.read(flag, maxFileBytes);
        deadlines.delete(file.key);
        return { wait: false, flag: { name: flag.name, bytes } };
      } catch (error) {
        const message = (error as Error).message;
        if (error instanceof FeedFileError)
          return untyped('bad-flag', `the flag ${flag.name} was refused: ${message}`);
        if (!overdue) return { wait: true }; // a transport failure: tried again next pass
        return untyped('no-flag', `the flag ${flag.name} could not be read: ${message}`);
      }
    },

    retain(keys) {
      for (const key of deadlines.keys()) if (!keys.has(key)) deadlines.delete(key);
    },
  };
}

/** No pairing: every frame converted at once, untyped, with no reason recorded. */
export const NO_PAIRING: FlagPairing = {
  refresh: async () => {},
  decide: async () => ({ wait: false }),
  retain: () => {},
};

/**
 * Why a frame converted after `decision` came out untyped (the archive's `precipFlag` note
 * says the flag given did not pair), or `undefined` when it is typed or no flag was sought.
 */
export function untypedReason(
  decision: Extract<FlagDecision, { wait: false }>,
  facts: Pick<MrmsArchiveFacts, 'flag'>,
): UntypedReason | undefined {
  if (decision.untyped) return decision.untyped.reason;
  return facts.flag !== undefined && !facts.flag.used ? 'bad-flag' : undefined;
}
