/**
 * Publishing nowcasts beside a producer's observed frames. After the producer publishes an
 * observed frame it calls {@link NowcastPublisher.observe}, which only posts the frame's input
 * to one worker thread and returns: the nowcast never delays the follower, the simulator or the
 * next observed frame. The worker (`forecast-worker.ts`) runs each base's cycle; when a base's
 * forecasts come back, the publisher writes them through the producer's own frame sink under
 * their forecast keys (`forecast-{base}-{LLL}`), in lead order, all six only after all six are
 * made (a base is never half made; a sink failure can leave it half written, and its cycle is
 * then counted failed). Every base is counted once by outcome, every base not published by
 * reason, and logged.
 */
import { join } from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { forecastKey } from '../domain/forecast-frames';
import type { FrameSink } from '../domain/producer-ports';
import { parseTimestamp } from '../domain/timestamps';
import type { Logger } from '../logger';
import type { WorkerJobSpec } from '../render/worker-job';
import type {
  CycleOutcome,
  CycleReport,
  NowcastWorkerData,
  NowcastWorkerMessage,
  ObservedFrameMessage,
} from './forecast-worker';

/** Why a base's forecasts were not published (`radar_nowcast_failures_total{reason}`). */
export const NOWCAST_FAILURE_REASONS = [
  'missing-earlier-frame',
  'grid-mismatch',
  'superseded',
  'error',
  'worker-died',
  'sink',
] as const;
export type NowcastFailureReason = (typeof NOWCAST_FAILURE_REASONS)[number];

/** Outcomes of a base (`radar_nowcast_cycles_total{outcome}`). */
export const NOWCAST_OUTCOMES: readonly CycleOutcome[] = [
  'published',
  'skipped',
  'superseded',
  'failed',
];

/** What the publisher reports, for metrics. */
export interface NowcastEvents {
  /** A base settled; `seconds` when its cycle ran (motion, extrapolation, rendering). */
  onCycle?(outcome: CycleOutcome, seconds: number | undefined): void;
  onFailure?(reason: NowcastFailureReason): void;
}

/** Options of {@link createNowcastPublisher}. */
export interface NowcastPublisherOptions {
  readonly sink: FrameSink;
  readonly logger: Logger;
  /** Leads in minutes, ascending, multiples of the 2-minute step. */
  readonly leads: readonly number[];
  /** The source's job module (exports `createFrameLoader`) and its options. */
  readonly loader: WorkerJobSpec;
  readonly events?: NowcastEvents;
  /**
   * Heap limits of the worker (its grids are typed arrays, outside the heap). A worker past
   * them, or one that exits, ends alone: its frames in hand fail (counted `worker-died`,
   * logged), the producer keeps publishing observed frames, the next frame starts a new worker.
   */
  readonly resourceLimits?: ResourceLimits;
}

/** The publisher; see the module comment. */
export interface NowcastPublisher {
  /**
   * An observed frame of archive timestamp `timestamp` was published; `input` is what the
   * source's frame loader reads (moved, not copied, for the buffers in `transfer`). Returns at
   * once, never throws.
   */
  observe(timestamp: string, input: unknown, transfer?: readonly ArrayBuffer[]): void;
  /**
   * A frame published before this producer started, read back (after a restart): its echo
   * image serves the bases to come as their earlier frame; it is no base (no forecasts of its
   * own, nothing counted). As {@link observe} otherwise.
   */
  recall(timestamp: string, input: unknown, transfer?: readonly ArrayBuffer[]): void;
  /** Resolves once every frame observed so far is handled and its forecasts written. */
  idle(): Promise<void>;
  /** Stops the worker (a running cycle is dropped) after the writes in flight. Idempotent. */
  close(): Promise<void>;
}

/** The worker script: compiled `.js`, or the `.ts` source through tsx (jest, tsx). */
function workerEntry(): { file: string; execArgv: string[] } {
  if (__filename.endsWith('.ts'))
    return {
      file: join(__dirname, 'forecast-worker.ts'),
      execArgv: ['--require', require.resolve('tsx/cjs')],
    };
  return { file: join(__dirname, 'forecast-worker.js'), execArgv: [] };
}

export function createNowcastPublisher(options: NowcastPublisherOptions): NowcastPublisher {
  const { sink, logger, leads, events = {} } = options;
  const entry = workerEntry();
  const data: NowcastWorkerData = { kind: 'radar-nowcast', loader: options.loader, leads };
  let worker: Worker | undefined;
  let outstanding = 0;
  let writing: Promise<void> = Promise.resolve();
  let waiters: Array<() => void> = [];
  let closing: Promise<void> | undefined;

  const settle = () => {
    if (outstanding > 0) return;
    const wake = waiters;
    waiters = [];
    void writing.then(() => wake.forEach((w) => w()));
  };

  const count = (outcome: CycleOutcome, reason: string | undefined, seconds?: number) => {
    events.onCycle?.(outcome, seconds);
    if (reason !== undefined) events.onFailure?.(reason as NowcastFailureReason);
  };

  const write = async (report: CycleReport) => {
    const archives = report.archives ?? [];
    try {
      for (const { lead, bytes } of archives)
        await sink.put(
          forecastKey({ base: report.base, lead }),
          Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        );
    } catch (error) {
      count('failed', 'sink', report.seconds);
      logger.warn(
        { base: report.base, err: (error as Error).message },
        'nowcast forecasts not written',
      );
      return;
    }
    count('published', undefined, report.seconds);
    const ms = Math.round((report.seconds ?? 0) * 1000);
    const bytes = archives.reduce((sum, a) => sum + a.bytes.byteLength, 0);
    logger.info({ base: report.base, leads, ms, bytes }, 'nowcast forecasts published');
  };

  const onReport = (report: CycleReport) => {
    if (report.outcome === 'published') {
      writing = writing.then(() => write(report));
      return;
    }
    count(report.outcome, report.reason, report.seconds);
    const fields = { base: report.base, reason: report.reason, detail: report.detail };
    if (report.outcome === 'failed') logger.error(fields, 'nowcast cycle failed');
    else if (report.outcome === 'skipped') logger.warn(fields, 'nowcast cycle skipped');
    else logger.info(fields, 'nowcast cycle superseded');
  };

  const start = (): Worker => {
    const w = new Worker(entry.file, {
      execArgv: entry.execArgv,
      workerData: data,
      resourceLimits: options.resourceLimits,
    });
    w.unref();
    w.on('message', (m: NowcastWorkerMessage) => {
      if (m.type === 'report') onReport(m);
      else {
        outstanding--;
        if (outstanding === 0) w.unref();
        settle();
      }
    });
    const died = (error: Error & { code?: string }) => {
      if (worker !== w) return;
      worker = undefined;
      if (closing) return;
      // Its book (the frames kept) is gone with it; the next frame starts a new worker. The
      // frames it held are lost: one failure for the cycle it was running.
      count('failed', 'worker-died');
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      logger.error(
        { err: error.message, outOfMemory, lost: outstanding },
        'nowcast worker died: its cycle failed, the next frame starts a new worker',
      );
      outstanding = 0;
      settle();
      void w.terminate();
    };
    w.on('error', died);
    w.on('exit', (code) => died(new Error(`nowcast worker exited with code ${code}`)));
    return w;
  };

  const post = (
    timestamp: string,
    input: unknown,
    transfer: readonly ArrayBuffer[],
    recalled: boolean,
  ) => {
    if (closing) return;
    const timeMs = parseTimestamp(timestamp);
    if (timeMs === undefined) {
      logger.error({ timestamp }, 'nowcast given a frame without a timestamp');
      return;
    }
    worker ??= start();
    const message: ObservedFrameMessage = { timeMs, input, ...(recalled ? { recalled } : {}) };
    try {
      worker.postMessage(
        message,
        transfer.filter((b) => b.byteLength > 0),
      );
    } catch (error) {
      count('failed', 'error');
      logger.error({ timestamp, err: (error as Error).message }, 'nowcast cycle failed');
      return;
    }
    outstanding++;
    worker.ref();
  };

  return {
    observe: (timestamp, input, transfer = []) => post(timestamp, input, transfer, false),
    recall: (timestamp, input, transfer = []) => post(timestamp, input, transfer, true),
    idle() {
      if (outstanding === 0) return writing;
      return new Promise<void>((resolve) => waiters.push(resolve));
    },
    close() {
      closing ??= (async () => {
        const w = worker;
        worker = undefined;
        await w?.terminate();
        await writing;
        outstanding = 0;
        settle();
      })();
      return closing;
    },
  };
}
