/**
 * The radar producer: publishes one archive per cadence boundary (UTC, even minutes for the
 * default 120 s), newest first. At start it publishes the current frame before anything
 * else, so a fresh service has a `latest` within seconds, then backfills the recent past so
 * clients have frames to animate.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger';
import { formatTimestamp } from '../domain/timestamps';
import type { FrameSink } from '../domain/producer-ports';
import { checkSimSetting, SIM_LIMITS } from './limits';
import type { RenderPool } from '../render/render-pool';

/** Report on one frame, for progress displays. */
export interface FrameProgress {
  /** `startup`: one of the frames published at start; `live`: a later frame. */
  readonly phase: 'startup' | 'live';
  readonly timestamp: string;
  /** `skipped`: the sink already had it. `failed`: retried at the next cadence boundary. */
  readonly outcome: 'published' | 'skipped' | 'failed';
  /** Startup frames settled so far, this one included (1 for live frames). */
  readonly done: number;
  /** Startup frames in all (1 for live frames). */
  readonly total: number;
  /** Time spent rendering and writing, ms (0 when skipped). */
  readonly elapsedMs: number;
  /** Archive size in bytes (0 unless published). */
  readonly bytes: number;
  readonly error?: Error;
}

/** Dependencies and settings of {@link createSimulator}. */
export interface SimulatorOptions {
  readonly sink: FrameSink;
  /** Renders frames off the event loop; `size` frames are rendered at once. */
  readonly pool: Pick<RenderPool<string>, 'render' | 'size'>;
  readonly logger: Logger;
  /** Seconds between frames, a positive multiple of 60 (timestamps have minute resolution). */
  readonly cadenceS?: number;
  /** Frames published at start, the current one included (default 30, at least 1). */
  readonly backfill?: number;
  /** Clock, epoch ms (tests inject a fake one). */
  readonly now?: () => number;
  readonly onProgress?: (progress: FrameProgress) => void;
  /**
   * Called with each frame's timestamp once its archive is in the sink (published now, or
   * found there), so a nowcast can follow the frames; must return at once.
   */
  readonly onFrame?: (timestamp: string) => void;
  /**
   * Whether the cadence timer keeps the process alive (a stand-alone producer wants that);
   * default false, so an embedding process exits on its own terms.
   */
  readonly keepAlive?: boolean;
}

/** A running producer. */
export interface Simulator {
  /**
   * Starts publishing. Resolves once every startup frame has been published, skipped or has
   * failed (failures are logged and retried at the next boundary, never thrown); live
   * publishing continues until {@link Simulator.stop}. Calling it again returns the same promise.
   */
  start(): Promise<void>;
  /** Cancels the timer and pending work and resolves once in-flight frames are written. */
  stop(): Promise<void>;
}

/** Creates a simulator; nothing happens until `start()`. */
export function createSimulator(options: SimulatorOptions): Simulator {
  const { sink, pool, logger, onProgress } = options;
  const cadenceS = checkSimSetting('cadenceS', options.cadenceS ?? SIM_LIMITS.cadenceS.default);
  const backfill = checkSimSetting('backfill', options.backfill ?? SIM_LIMITS.backfill.default);
  const now = options.now ?? Date.now;
  const cadenceMs = cadenceS * 1000;

  const settled = new Set<string>(); // published or found in the sink
  const failed = new Set<string>(); // not retried before the next cadence boundary
  const inFlight = new Map<string, Promise<void>>();
  const startup = new Set<string>();
  let startupTotal = 0;
  let startupDone = 0;
  let firstSettled = false;
  let started: Promise<void> | undefined;
  let finishStartup: () => void = () => undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const currentSlot = () => Math.floor(now() / cadenceMs) * cadenceMs;

  /** Frames wanted now, newest first: the last `backfill` slots and any unfinished startup frame. */
  const wanted = (): string[] => {
    const newest = currentSlot();
    const list = new Set<string>();
    for (let i = 0; i < backfill; i++) list.add(formatTimestamp(newest - i * cadenceMs));
    for (const ts of startup) list.add(ts);
    return [...list].sort().reverse();
  };

  const pump = () => {
    if (stopped) return;
    // The first startup frame renders alone so that it gets the whole machine.
    const capacity = firstSettled ? Math.max(1, pool.size) : 1;
    for (const timestamp of wanted()) {
      if (inFlight.size >= capacity) break;
      if (settled.has(timestamp) || failed.has(timestamp) || inFlight.has(timestamp)) continue;
      const job = produce(timestamp).finally(() => {
        inFlight.delete(timestamp);
        pump();
      });
      inFlight.set(timestamp, job);
    }
    prune();
  };

  const prune = () => {
    const oldest = formatTimestamp(currentSlot() - (backfill - 1) * cadenceMs);
    for (const ts of settled) if (ts < oldest && !startup.has(ts)) settled.delete(ts);
  };

  const produce = async (timestamp: string): Promise<void> => {
    const phase = startup.has(timestamp) ? 'startup' : 'live';
    const began = performance.now();
    let outcome: FrameProgress['outcome'] = 'published';
    let bytes = 0;
    let error: Error | undefined;
    try {
      if (await sink.has(timestamp)) {
        outcome = 'skipped';
      } else {
        const archive = await pool.render(timestamp);
        await sink.put(timestamp, archive);
        bytes = archive.length;
      }
      settled.add(timestamp);
      options.onFrame?.(timestamp);
    } catch (caught) {
      outcome = 'failed';
      error = toError(caught);
    }
    const elapsedMs = outcome === 'skipped' ? 0 : Math.round(performance.now() - began);
    firstSettled = true;
    if (outcome === 'failed') {
      failed.add(timestamp);
      if (!stopped)
        logger.warn({ timestamp, err: error }, 'radar frame failed; retrying at the next boundary');
    } else if (outcome === 'published') {
      logger.info({ timestamp, bytes, ms: elapsedMs, phase }, 'radar frame published');
    } else {
      logger.debug({ timestamp }, 'radar frame already published');
    }
    let done = 1;
    let total = 1;
    if (phase === 'startup') {
      startup.delete(timestamp);
      done = ++startupDone;
      total = startupTotal;
    }
    onProgress?.({
      phase,
      timestamp,
      outcome,
      done,
      total,
      elapsedMs,
      bytes,
      ...(error ? { error } : {}),
    });
    if (phase === 'startup' && startup.size === 0) finishStartup();
  };

  const arm = () => {
    if (stopped) return;
    const at = now();
    const delay = Math.floor(at / cadenceMs) * cadenceMs + cadenceMs - at;
    timer = setTimeout(() => {
      timer = undefined;
      failed.clear();
      pump();
      arm();
    }, delay);
    if (!options.keepAlive) timer.unref();
  };

  return {
    start() {
      started ??= new Promise<void>((resolve) => {
        finishStartup = resolve;
        const newest = currentSlot();
        for (let i = 0; i < backfill; i++) startup.add(formatTimestamp(newest - i * cadenceMs));
        startupTotal = startup.size;
        logger.info(
          { newest: formatTimestamp(newest), frames: startupTotal, cadenceS },
          'radar simulator starting',
        );
        pump();
        arm();
      });
      return started;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await Promise.allSettled([...inFlight.values()]);
      startup.clear();
      finishStartup();
    },
  };
}

/** Errors from another realm (e.g. fs errors under a vm) fail `instanceof Error`; keep them as they are. */
function toError(value: unknown): Error {
  if (typeof value === 'object' && value !== null && typeof (value as Error).message === 'string')
    return value as Error;
  return new Error(String(value));
}
