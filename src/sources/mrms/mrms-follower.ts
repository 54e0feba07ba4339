/**
 * The MRMS follower: keeps the newest `backfill` files of a feed published as archives, each
 * exactly once. Every pass lists the feed's newest files and, newest first, skips the ones
 * whose frame the sink already has (by the time in the file name, before downloading), then
 * downloads, converts (in the render pool) and publishes the rest under the archive's own
 * timestamp (the GRIB2 valid time the renderer wrote into its metadata). So the first pass is
 * the backfill, later passes pick up each new file, and a restart converts nothing twice.
 *
 * Failures never stop it: a listing that fails is retried with exponential backoff; a
 * download that fails is retried a few times with backoff, then left for the next pass; a file
 * that is not valid GRIB2 or not reflectivity is counted and skipped for good; a failed upload
 * is retried at the next pass. With a leader lease, only the holder works; the others wait
 * and take over within the lease's TTL.
 */
import { performance } from 'node:perf_hooks';
import type { FeedFile, FileFeed, FrameSink, LeaderLease } from '../../domain/ports';
import { FeedFileError } from '../../domain/ports';
import { formatTimestamp } from '../../domain/timestamps';
import type { Logger } from '../../logger';
import { RenderJobError } from '../../render/render-pool';
import { mrmsArchiveFacts, type MrmsFrameInput } from './mrms-frame';

/** Why a step failed, as counted by the metrics (`radar_mrms_failures_total{reason}`). */
export const MRMS_FAILURE_REASONS = [
  'source',
  'bad-file',
  'not-reflectivity',
  'conversion',
  'sink',
] as const;
export type MrmsFailureReason = (typeof MRMS_FAILURE_REASONS)[number];

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
  /** Conversion failures (not bad input) of one file before it is given up. */
  readonly conversionAttempts?: number;
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

const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseMs: 1000, maxMs: 60_000 };

/** The bad-input classes a conversion reports, and the reason each is counted under. */
const BAD_INPUT: Readonly<Record<string, MrmsFailureReason>> = {
  Grib2Error: 'bad-file',
  MrmsProductError: 'not-reflectivity',
};

export function createMrmsFollower(options: MrmsFollowerOptions): MrmsFollower {
  const { feed, sink, convert, logger, lease, events = {} } = options;
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const conversionAttempts = options.conversionAttempts ?? 3;
  const concurrency = Math.max(1, options.concurrency);

  /** Keys settled for good: published, found published, or bad input. */
  const done = new Set<string>();
  /** Unexpected conversion failures per key, until the file is given up. */
  const conversionFailures = new Map<string, number>();
  let leader = lease === undefined;
  let stopped = false;
  let newestMs: number | undefined;
  let started: Promise<void> | undefined;
  let loop: Promise<void> | undefined;
  let renewTimer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const fail = (reason: MrmsFailureReason) => events.onFailure?.(reason);
  const noteNewest = (ms: number) => {
    if (newestMs === undefined || ms > newestMs) newestMs = ms;
  };

  /** Waits `ms`, or less when stopped or woken (leadership taken). */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(finish, ms);
      function finish() {
        clearTimeout(timer);
        if (wake === finish) wake = undefined;
        resolve();
      }
      wake = finish;
    });

  const working = () => !stopped && leader;

  const download = async (file: FeedFile): Promise<Buffer | undefined> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await feed.read(file, maxFileBytes);
      } catch (error) {
        if (error instanceof FeedFileError) {
          done.add(file.key);
          fail(error.reason === 'too-large' ? 'bad-file' : 'source');
          logger.warn({ file: file.key, err: error.message }, 'mrms file skipped');
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
        await pause(Math.min(retry.maxMs, retry.baseMs * 2 ** (attempt - 1)));
        if (!working()) return undefined;
      }
    }
  };

  const handle = async (file: FeedFile): Promise<void> => {
    const named = formatTimestamp(file.timeMs);
    if (await sink.has(named)) {
      done.add(file.key);
      noteNewest(file.timeMs);
      events.onSkipped?.(named);
      logger.debug({ file: file.name, timestamp: named }, 'mrms frame already published');
      return;
    }
    const bytes = await download(file);
    if (bytes === undefined || !working()) return;
    const began = performance.now();
    let archive: Buffer;
    try {
      archive = await convert({ name: file.name, bytes });
    } catch (error) {
      const reason = error instanceof RenderJobError ? BAD_INPUT[error.jobErrorName] : undefined;
      if (reason !== undefined) {
        done.add(file.key);
        fail(reason);
        logger.warn({ file: file.key, reason, err: (error as Error).message }, 'mrms file skipped');
        return;
      }
      fail('conversion');
      const failures = (conversionFailures.get(file.key) ?? 0) + 1;
      conversionFailures.set(file.key, failures);
      if (failures >= conversionAttempts) done.add(file.key);
      logger.error(
        { file: file.key, err: error, failures, givenUp: failures >= conversionAttempts },
        'mrms conversion failed',
      );
      return;
    }
    const seconds = (performance.now() - began) / 1000;
    let facts: ReturnType<typeof mrmsArchiveFacts>;
    try {
      facts = mrmsArchiveFacts(archive);
    } catch (error) {
      fail('conversion'); // the renderer wrote no usable timestamp: a bug, never a bad file
      done.add(file.key);
      logger.error({ file: file.key, err: error }, 'mrms archive names no timestamp');
      return;
    }
    if (facts.timestamp !== named) {
      logger.info(
        { file: file.name, named, valid: facts.timestamp },
        'mrms file name and GRIB2 valid time disagree; the valid time names the archive',
      );
      if (await sink.has(facts.timestamp)) {
        done.add(file.key);
        noteNewest(facts.validTimeMs);
        events.onSkipped?.(facts.timestamp);
        return;
      }
    }
    try {
      await sink.put(facts.timestamp, archive);
    } catch (error) {
      fail('sink');
      logger.warn(
        { file: file.name, timestamp: facts.timestamp, err: (error as Error).message },
        'mrms frame upload failed; retrying at the next pass',
      );
      return;
    }
    done.add(file.key);
    conversionFailures.delete(file.key);
    noteNewest(facts.validTimeMs);
    events.onConverted?.({
      timestamp: facts.timestamp,
      seconds,
      bytes: archive.length,
      validTimeMs: facts.validTimeMs,
    });
    logger.info(
      {
        file: file.name,
        timestamp: facts.timestamp,
        bytes: archive.length,
        ms: Math.round(seconds * 1000),
      },
      'mrms frame published',
    );
  };

  /** One pass; false when the feed could not be listed (the caller backs off). */
  const pass = async (): Promise<boolean> => {
    let files: FeedFile[];
    try {
      files = await feed.newest(options.backfill);
    } catch (error) {
      fail('source');
      logger.warn(
        { err: (error as Error).message, feed: feed.describe },
        'mrms source listing failed',
      );
      return false;
    }
    // Forget keys that left the listing: they will not be offered again.
    const listed = new Set(files.map((f) => f.key));
    for (const key of done) if (!listed.has(key)) done.delete(key);
    for (const key of conversionFailures.keys())
      if (!listed.has(key)) conversionFailures.delete(key);
    const queue = files.filter((f) => !done.has(f.key));
    const worker = async () => {
      for (let file = queue.shift(); file && working(); file = queue.shift()) {
        try {
          await handle(file);
        } catch (error) {
          // The sink could not answer `has`: a store problem, retried next pass.
          fail('sink');
          logger.warn(
            { file: file.key, err: (error as Error).message },
            'mrms frame not published',
          );
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return true;
  };

  const renew = async () => {
    if (!lease || stopped) return;
    let now = false;
    try {
      now = await lease.acquire();
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'mrms leader lease check failed');
    }
    if (now !== leader) {
      leader = now;
      logger.info({ leader }, now ? 'mrms leadership acquired' : 'mrms leadership lost');
      if (now) wake?.(); // work at once
    }
  };

  const run = async (firstPass: () => void) => {
    let failures = 0;
    while (!stopped) {
      if (leader) {
        failures = (await pass()) ? 0 : failures + 1;
        firstPass();
      }
      if (stopped) break;
      await pause(
        failures === 0 ? options.pollMs : Math.min(retry.maxMs, options.pollMs * 2 ** failures),
      );
    }
  };

  return {
    start() {
      started ??= (async () => {
        if (lease) {
          await renew();
          renewTimer = setInterval(() => void renew(), options.leaseRenewMs ?? 5000);
          renewTimer.unref();
        }
        await new Promise<void>((resolve) => {
          loop = run(resolve);
          if (!leader) resolve();
          void loop.finally(resolve);
        });
      })();
      return started;
    },
    async stop() {
      stopped = true;
      if (renewTimer) clearInterval(renewTimer);
      wake?.();
      await loop;
      if (lease && leader) {
        await lease.release().catch(() => undefined);
        leader = false;
      }
    },
    isLeader: () => leader,
    newestValidTimeMs: () => newestMs,
  };
}
