/**
 * The MRMS follower: keeps the newest `backfill` files of a feed published as archives, each
 * exactly once. Every pass lists the feed's newest files and, newest first, skips the ones
 * whose frame the sink already has (by the time in the file name, before downloading), then
 * downloads, converts (in the render pool) and publishes the rest under the archive's own
 * timestamp (the GRIB2 valid time the renderer wrote into its metadata). So the first pass is
 * the backfill, later passes pick up each new file, and a restart converts nothing twice.
 *
 * Failures never stop it: a file named past the clock is counted once and skipped, taking no
 * place among the newest (`future-names.ts`); a listing that fails is retried with backoff; a
 * download that fails is retried a few times with backoff, then left for the next pass; a
 * file that is not valid GRIB2 or not reflectivity is counted and refused (that version of
 * it, across restarts when a verdict store is given); a failed upload is retried at the next
 * pass. With a leader lease, only the holder works; the others wait and take over within the
 * lease's TTL.
 *
 * With a flag pairing (`flag-pairing.ts`) each frame is converted with the PrecipFlag file of
 * its cycle; a frame whose flag has not come yet is deferred to later passes (never holding
 * the others up) until the flag comes or the wait runs out, then published untyped, counted
 * (`onUntyped`). Once published a frame is settled: a flag arriving later changes nothing.
 */
import { performance } from 'node:perf_hooks';
import type { FeedFile } from '../../domain/producer-ports';
import { formatTimestamp } from '../../domain/timestamps';
import { RenderJobError, RenderWorkerDiedError } from '../../render/render-pool';
import { backoffMs } from '../../shared/backoff';
import { createFeedDownload } from './feed-download';
import { NO_PAIRING, untypedReason } from './flag-pairing';
import { createLeadership } from '../../shared/leadership';
import { createWakeablePause } from '../../shared/wakeable-pause';
import {
  DEFAULT_FUTURE_TOLERANCE_MS,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_RETRY,
  BAD_INPUT,
  type MrmsFailureReason,
  type MrmsFollower,
  type MrmsFollowerOptions,
  type RetryPolicy,
} from './mrms-follower-contract';
import { createFileBook, createMemoryFileVerdicts } from './file-verdicts';
import { createFutureNameFilter } from './future-names';
import { mrmsArchiveFacts, type MrmsFrameInput } from './mrms-frame';
import { createPublishedRecall } from './published-recall';

export * from './mrms-follower-contract';

export function createMrmsFollower(options: MrmsFollowerOptions): MrmsFollower {
  const { feed, sink, convert, logger, lease, events = {} } = options;
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const conversionAttempts = options.conversionAttempts ?? 3;
  const concurrency = Math.max(1, options.concurrency);

  /** Files settled: published, found published, or refused (this version). */
  const book = createFileBook(options.verdicts ?? createMemoryFileVerdicts());
  /** Unexpected conversion failures per key, until the file is given up. */
  const conversionFailures = new Map<string, number>();
  let stopped = false;
  let halt: () => void = () => {};
  /** Settles at `stop()`: a read still pending then is abandoned, never awaited. */
  const halted = new Promise<undefined>((resolve) => (halt = () => resolve(undefined)));
  let newestMs: number | undefined;
  let started: Promise<void> | undefined;
  let loop: Promise<void> | undefined;
  const { pause, wake } = createWakeablePause();
  const leadership =
    lease &&
    createLeadership({
      lease,
      renewMs: options.leaseRenewMs ?? 5000,
      logger,
      role: 'mrms',
      onChange: (leader) => {
        if (leader) wake(); // work at once
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
  /** Counts `file` under `reason` and logs it as skipped. */
  const reportSkipped = (file: FeedFile, reason: MrmsFailureReason, problem: string) => {
    fail(reason);
    logger.warn({ file: file.key, reason, err: problem }, 'mrms file skipped');
  };
  /** Refuses `file` for this version, counted under `reason` and logged as skipped. */
  const skip = async (file: FeedFile, reason: MrmsFailureReason, problem: string) => {
    reportSkipped(file, reason, problem);
    await book.refuse(file, problem);
  };
  const working = () => !stopped && leading();
  const downloadDeps = { feed, retry, maxFileBytes, logger, halted, pause, working, skip, fail };
  const download = createFeedDownload(downloadDeps);
  const pairing = options.pairing ?? NO_PAIRING;
  const recall =
    options.recall && createPublishedRecall(options.recall, feed, maxFileBytes, logger);

  /** Converts `file`'s input; `undefined` when the file was refused or the failure logged. */
  const conversion = async (file: FeedFile, input: MrmsFrameInput): Promise<Buffer | undefined> => {
    const refusal = await book.begin(file);
    if (refusal) {
      if (refusal.fresh) reportSkipped(file, 'bad-file', refusal.reason);
      else logger.debug({ file: file.key, err: refusal.reason }, 'mrms file refused earlier');
      return undefined;
    }
    try {
      return await convert(input);
    } catch (error) {
      // Bad input, or input that killed its render worker: refused for this version.
      const reason =
        error instanceof RenderJobError
          ? BAD_INPUT[error.jobErrorName]
          : error instanceof RenderWorkerDiedError
            ? 'bad-file'
            : undefined;
      if (reason !== undefined) {
        await skip(file, reason, (error as Error).message);
        return undefined;
      }
      fail('conversion');
      const failures = (conversionFailures.get(file.key) ?? 0) + 1;
      conversionFailures.set(file.key, failures);
      const givenUp = failures >= conversionAttempts;
      logger.error({ file: file.key, err: error, failures, givenUp }, 'mrms conversion failed');
      if (givenUp) await book.refuse(file, `conversion failed ${failures} times`);
      else await book.end(file);
      return undefined;
    }
  };

  const handle = async (file: FeedFile): Promise<void> => {
    const named = formatTimestamp(file.timeMs);
    if (await sink.has(named)) {
      await book.published(file);
      noteNewest(file.timeMs);
      recall?.offer(file);
      events.onSkipped?.(named);
      logger.debug({ file: file.name, timestamp: named }, 'mrms frame already published');
      return;
    }
    const ready = await pairing.decide(file);
    if (ready.wait) return; // its flag is awaited: offered again next pass, deadline kept
    const bytes = await download(file);
    if (bytes === undefined || !working()) return;
    const began = performance.now();
    const input = {
      name: file.name,
      bytes,
      flag: ready.flag,
      untypedReason: ready.untyped?.problem,
    };
    const archive = await conversion(file, input);
    if (archive === undefined) return;
    const seconds = (performance.now() - began) / 1000;
    let facts: ReturnType<typeof mrmsArchiveFacts>;
    try {
      facts = mrmsArchiveFacts(archive);
    } catch (error) {
      fail('conversion'); // the renderer wrote no usable timestamp: a bug, never a bad file
      await book.refuse(file, 'the archive names no timestamp');
      logger.error({ file: file.key, err: error }, 'mrms archive names no timestamp');
      return;
    }
    if (facts.timestamp !== named) {
      logger.info(
        { file: file.name, named, valid: facts.timestamp },
        'mrms file name and GRIB2 valid time disagree; the valid time names the archive',
      );
      if (await sink.has(facts.timestamp)) {
        await book.published(file);
        noteNewest(facts.validTimeMs);
        events.onSkipped?.(facts.timestamp);
        return;
      }
    }
    try {
      await sink.put(facts.timestamp, archive);
    } catch (error) {
      fail('sink');
      await book.end(file);
      logger.warn(
        { file: file.name, timestamp: facts.timestamp, err: (error as Error).message },
        'mrms frame upload failed; retrying at the next pass',
      );
      return;
    }
    await book.published(file);
    conversionFailures.delete(file.key);
    noteNewest(facts.validTimeMs);
    const { timestamp, validTimeMs } = facts;
    events.onConverted?.({ timestamp, seconds, bytes: archive.length, validTimeMs });
    options.onPublished?.(timestamp, input);
    const untyped = untypedReason(ready, facts);
    if (untyped) events.onUntyped?.(untyped);
    const ms = Math.round(seconds * 1000);
    const published = { file: file.name, timestamp, bytes: archive.length, ms };
    if (untyped === undefined) logger.info(published, 'mrms frame published');
    else
      logger.warn(
        { ...published, reason: untyped, flag: facts.flag?.file, err: facts.flag?.problem },
        'mrms frame published untyped',
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
    for (const key of conversionFailures.keys())
      if (!listed.has(key)) conversionFailures.delete(key);
    recall?.retain(files);
    const queue = future.present(files, options.backfill).filter((f) => !book.settled(f));
    pairing.retain(new Set(queue.map((f) => f.key)));
    if (queue.length > 0) await pairing.refresh(options.backfill + 2);
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
    try {
      await book.retain(files);
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'mrms file verdicts not pruned');
    }
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
      halt();
      leadership?.stopRenewing();
      wake();
      await loop;
      await recall?.settled();
      await leadership?.release();
    },
    isLeader: leading,
    newestValidTimeMs: () => newestMs,
  };
}
