/**
 * Worker-thread entry of the nowcast publisher: holds the cycle book (the echo images of the
 * last baseline and the newest frame's grid), reads each observed frame it is told of with its
 * source's frame loader, and runs the cycles the book decides, one at a time, posting each
 * base's outcome (and its forecast archives) back. Frames are handled in the order they come;
 * a cycle gives up between two leads as soon as a newer frame is waiting, so a slow cycle
 * never holds forecasts of an older base against the newer one. Runs only inside a worker
 * started by `nowcast-publisher.ts`.
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { formatTimestamp } from '../domain/timestamps';
import { createCycleBook, type SkippedBase } from '../nowcast/cycle-book';
import { loadOpenCv } from '../nowcast/opencv';
import { movable } from '../render/movable-view';
import { releaseMemory } from '../render/release-memory';
import type {
  FrameLoader,
  FrameLoaderModule,
  LoadedFrame,
  WorkerJobSpec,
} from '../render/worker-job';
import {
  BASELINE_MINUTES,
  compactTypes,
  echoImageOf,
  frameIdentity,
  runForecastCycle,
} from './forecast-cycle';

/** `workerData` of a nowcast worker. */
export interface NowcastWorkerData {
  /** Marks a nowcast worker, so importing this module anywhere else does nothing. */
  readonly kind: 'radar-nowcast';
  /** The source's job module (it exports `createFrameLoader`) and its options. */
  readonly loader: WorkerJobSpec;
  /** Leads in minutes, ascending. */
  readonly leads: readonly number[];
}

/** Publisher -> worker: an observed frame was published. */
export interface ObservedFrameMessage {
  /** The frame's archive timestamp as epoch ms (whole minutes). */
  readonly timeMs: number;
  /** What the source's loader reads (a timestamp, a file's bytes). */
  readonly input: unknown;
  /**
   * A frame published before this producer started, read back for its echo image only: an
   * earlier frame for the bases to come, never a base itself, never reported.
   */
  readonly recalled?: boolean;
}

/** How a base's cycle ended. */
export type CycleOutcome = 'published' | 'skipped' | 'superseded' | 'failed';

/** Worker -> publisher: one base settled. */
export interface CycleReport {
  readonly type: 'report';
  readonly base: string;
  readonly outcome: CycleOutcome;
  /** Why it did not publish: a skip reason, or `error`. */
  readonly reason?: string;
  readonly detail?: string;
  /** Wall seconds of the cycle (motion, extrapolation and rendering), when it ran. */
  readonly seconds?: number;
  /** The forecast archives, in lead order, when published (buffers transferred). */
  readonly archives?: readonly { readonly lead: number; readonly bytes: Uint8Array }[];
}

/** Worker -> publisher: one observed frame is handled (its reports were posted before). */
export interface HandledMessage {
  readonly type: 'handled';
}

/** What a nowcast worker posts. */
export type NowcastWorkerMessage = CycleReport | HandledMessage;

function loadLoader(spec: WorkerJobSpec): FrameLoader {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require(spec.module) as Partial<FrameLoaderModule>;
  if (typeof loaded.createFrameLoader !== 'function')
    throw new Error(`${spec.module} exports no createFrameLoader`);
  return loaded.createFrameLoader(spec.options);
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

function serve(port: MessagePort, data: NowcastWorkerData): void {
  const loader = loadLoader(data.loader);
  const opencv = loadOpenCv();
  const book = createCycleBook<LoadedFrame>(BASELINE_MINUTES * 60_000);
  const queue: ObservedFrameMessage[] = [];
  let draining = false;

  const report = (r: Omit<CycleReport, 'type'>) => {
    const moved = r.archives?.map((a) => ({ lead: a.lead, ...movable(a.bytes) }));
    const archives = moved?.map((m) => ({ lead: m.lead, bytes: m.view }));
    const message: CycleReport = { type: 'report', ...r, ...(archives ? { archives } : {}) };
    port.postMessage(message, moved?.flatMap((m) => m.transfer) ?? []);
  };
  const skipped = (s: SkippedBase) =>
    report({
      base: formatTimestamp(s.baseMs),
      outcome: s.reason === 'superseded' ? 'superseded' : 'skipped',
      reason: s.reason,
      detail: s.detail,
    });
  /** Lets queued messages in, then says whether one is newer than `baseMs`. */
  const newerWaiting = async (baseMs: number) => {
    await new Promise((resolve) => setImmediate(resolve));
    return queue.some((m) => m.timeMs > baseMs && !m.recalled);
  };

  const handle = async ({ timeMs, input, recalled }: ObservedFrameMessage) => {
    const base = formatTimestamp(timeMs);
    let observation;
    try {
      if (recalled) {
        if (!book.needs(timeMs)) return;
        const frame = loader(input);
        const image = echoImageOf(frame);
        observation = book.remember({ timeMs, identity: frameIdentity(frame), image });
      } else if (!book.needs(timeMs)) observation = book.observe({ timeMs, identity: '' });
      else {
        const frame = compactTypes(loader(input));
        const image = echoImageOf(frame);
        observation = book.observe({ timeMs, identity: frameIdentity(frame), image, full: frame });
      }
    } catch (error) {
      report({ base, outcome: 'failed', reason: 'error', detail: message(error) });
      return;
    } finally {
      // The decoder's and the float type grid's memory, and the grid the book let go.
      releaseMemory();
    }
    observation.skipped.forEach(skipped);
    const run = observation.run;
    if (run === undefined) return;
    const cycleBase = formatTimestamp(run.baseMs);
    const began = performance.now();
    try {
      const { cv } = await opencv;
      const archives = await runForecastCycle(cv, run, data.leads, () => newerWaiting(run.baseMs));
      const seconds = (performance.now() - began) / 1000;
      if (archives === undefined)
        report({
          base: cycleBase,
          outcome: 'superseded',
          reason: 'superseded',
          detail: 'a newer frame came while its cycle ran',
          seconds,
        });
      else report({ base: cycleBase, outcome: 'published', seconds, archives });
    } catch (error) {
      report({ base: cycleBase, outcome: 'failed', reason: 'error', detail: message(error) });
    } finally {
      book.finished(run.baseMs);
      // The forecast grids and trajectories, and the base grid once the book dropped it.
      releaseMemory();
    }
  };

  const drain = async () => {
    draining = true;
    for (let next = queue.shift(); next; next = queue.shift()) {
      await handle(next);
      port.postMessage({ type: 'handled' } satisfies HandledMessage);
    }
    draining = false;
  };
  port.on('message', (m: ObservedFrameMessage) => {
    queue.push(m);
    if (!draining) void drain();
  });
}

const port = parentPort;
const data = workerData as NowcastWorkerData | undefined;
if (port && data?.kind === 'radar-nowcast') serve(port, data);
