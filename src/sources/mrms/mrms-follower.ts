/**
 * The MRMS follower: keeps the newest `backfill` files of a feed published as archives, each
 * exactly once. Every pass lists the feed's newest files and, newest first, skips the ones
 * whose frame the sink already has (by the time in the file name, before downloading), then
 * downloads, converts (in the render pool) and publishes the rest under the archive's own
 * timestamp (the GRIB2 valid time the renderer wrote into its metadata). So the first pass is
 * the backfill, later passes pick up each new file, and a restart converts nothing twice.
 *
 * A file named past the clock (beyond a tolerance) is counted once and skipped, and takes no
 * place among the newest files (`future-names.ts`).
 *
 * Failures never stop it: a listing that fails is retried with exponential backoff; a
 * download that fails is retried a few times with backoff, then left for the next pass; a file
 * that is not valid GRIB2 or not reflectivity is counted and skipped for good; a failed upload
 * is retried at the next pass. With a leader lease, only the holder works; the others wait
 * and take over within the lease's TTL.
 */
import { performance } from 'node:perf_hooks';
import type { FeedFile } from '../../domain/ports';
import { FeedFileError } from '../../domain/ports';
import { formatTimestamp } from '../../domain/timestamps';
import { RenderJobError } from '../../render/render-pool';
import { backoffMs } from '../../shared/backoff';
import { createLeadership } from '../../shared/leadership';
import {
  DEFAULT_FUTURE_TOLERANCE_MS,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_RETRY,
  type MrmsFailureReason,
  type MrmsFollower,
  type MrmsFollowerOptions,
  type RetryPolicy,
} from './mrms-follower-contract';
import { createFutureNameFilter } from './future-names';
import { mrmsArchiveFacts } from './mrms-frame';

export * from './mrms-follower-contract';

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
  let stopped = false;
  let newestMs: number | undefined;
  let started: Promise<void> | undefined;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  const leadership =
    lease &&
    createLeadership({
      lease,
      renewMs: options.leaseRenewMs ?? 5000,
      logger,
      role: 'mrms',
      onChange: (leader) => {
        if (leader) wake?.(); // work at once
      },
    });
  /** Without a lease this follower always works. */
  const leading = () => leadership?.isLeader() ?? true;

  const fail = (reason: MrmsFailureReason) => events.onFailure?.(reason);
  const future = createFutureNameFilter({
    toleranceMs: options.futureToleranceMs ?? DEFAULT_FUTURE_TOLERANCE_MS,
    now: options.now ?? Date.now,
    onFuture: (file) => {
      fail('future-name');
      const named = new Date(file.timeMs).toISOString();
      logger.warn({ file: file.key, named }, 'mrms file named in the future skipped');
    },
  });
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

  const working = () => !stopped && leading();

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
        await pause(backoffMs(attempt, retry.baseMs, retry.maxMs));
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
      files = await feed.newest(options.backfill + future.extra(options.backfill));
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
    const queue = future.present(files, options.backfill).filter((f) => !done.has(f.key));
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

  const run = async (firstPass: () => void) => {
    let failures = 0;
    while (!stopped) {
      if (leading()) {
        failures = (await pass()) ? 0 : failures + 1;
        firstPass();
      }
      if (stopped) break;
      await pause(
        failures === 0 ? options.pollMs : backoffMs(failures + 1, options.pollMs, retry.maxMs),
      );
    }
  };

  return {
    start() {
      started ??= (async () => {
        await leadership?.start();
        await new Promise<void>((resolve) => {
          loop = run(resolve);
          if (!leading()) resolve();
          void loop.finally(resolve);
        });
      })();
      return started;
    },
    async stop() {
      stopped = true;
      leadership?.stopRenewing();
      wake?.();
      await loop;
      await leadership?.release();
    },
    isLeader: leading,
    newestValidTimeMs: () => newestMs,
  };
}
