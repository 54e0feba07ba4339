/**
 * The bookkeeping of a producer's nowcast cycles: what it keeps between observed frames and
 * which cycle to run, skip or give up. It keeps only what the next cycles need: the small echo
 * images of the frames of the last baseline (the motion is measured between a base and the
 * frame one baseline before it), and the full-resolution payload of the newest frame alone
 * (the grid the next forecasts are read from) until its cycle has run. Pure: no grids are
 * decoded or rendered here.
 *
 * Frames may come in any order (a producer backfills newest first). The newest frame observed
 * is the base: its cycle runs as soon as the frame one baseline before it is there, at once or
 * when it arrives later. Every base is settled exactly once:
 * - `run`: its cycle is started (then `finished` says published, superseded or failed);
 * - `superseded`: a newer frame was observed first (a backfilled older frame is no base), or
 *   came while its cycle ran (the caller abandons the cycle);
 * - `missing-earlier-frame`: a newer frame came and the frame one baseline before this base
 *   never did, though frames older than it were observed (a gap in the sequence). When no
 *   frame that old was ever observed (the producer has just started: a backfill converting
 *   several frames at once may bring it later), the base is counted `superseded` instead, so
 *   a start is never counted as a gap;
 * - `grid-mismatch`: the frame one baseline before it is of another grid or product.
 *
 * Frames published before the book began (a producer restarted) can be remembered: their echo
 * images serve as earlier frames, but they are never bases.
 */
import type { EchoImage } from './echo-image';

/** Why a base's cycle did not publish, for logs and `radar_nowcast_failures_total{reason}`. */
export type CycleSkipReason = 'missing-earlier-frame' | 'grid-mismatch' | 'superseded';

/** A base whose cycle will not run (or was given up), and why. */
export interface SkippedBase {
  readonly baseMs: number;
  readonly reason: CycleSkipReason;
  readonly detail: string;
}

/** A cycle to run now: the base's payload and the two echo images its motion is measured on. */
export interface CycleToRun<Full> {
  readonly baseMs: number;
  readonly full: Full;
  readonly earlier: EchoImage;
  readonly latest: EchoImage;
}

/** What observing one frame decided. */
export interface Observation<Full> {
  /** Bases settled as not run, oldest first. */
  readonly skipped: readonly SkippedBase[];
  /** The cycle to start, if any. */
  readonly run?: CycleToRun<Full>;
}

/** One observed frame, as the book is told of it. */
export interface ObservedFrame<Full> {
  readonly timeMs: number;
  /** Which grid and product it is on: frames of different identities are never paired. */
  readonly identity: string;
  /** Its echo image; needed only when {@link CycleBook.needs} said so. */
  readonly image?: EchoImage;
  /** Its full-resolution payload; needed only when it is newer than every frame seen. */
  readonly full?: Full;
}

/** The book; see the module comment. */
export interface CycleBook<Full> {
  /**
   * Whether a frame of `timeMs` must be decoded: newer than the newest (a new base) or within
   * one baseline before it (an earlier frame of this base or of bases to come). An older one
   * is settled without being read.
   */
  needs(timeMs: number): boolean;
  observe(frame: ObservedFrame<Full>): Observation<Full>;
  /**
   * The echo image of a frame published before this book began (read back after a restart):
   * kept when {@link needs} says so, never a base and never settled; it runs the waiting
   * base's cycle when it is that base's earlier frame.
   */
  remember(frame: Required<Omit<ObservedFrame<Full>, 'full'>>): Observation<Full>;
  /** The cycle of `baseMs` ended (published, failed, or abandoned when superseded). */
  finished(baseMs: number): void;
  /** Whether a cycle of `baseMs` is running and a newer frame would supersede it. */
  isRunning(baseMs: number): boolean;
  /** Times of the echo images kept, ascending (for tests and the memory bound). */
  kept(): number[];
  /** The time of the newest frame (the base), if any. */
  newest(): number | undefined;
  /** Whether the base's full payload is still kept (until its cycle ran or was skipped). */
  holdsPayload(): boolean;
}

type BaseState = 'waiting' | 'running' | 'done';

/** A book whose cycles measure motion over `baselineMs` (10 minutes for the nowcast). */
export function createCycleBook<Full>(baselineMs: number): CycleBook<Full> {
  if (!(baselineMs > 0)) throw new RangeError(`baselineMs ${baselineMs} must be positive`);
  const images = new Map<number, { image: EchoImage; identity: string }>();
  /** The newest frame; its payload is dropped once its cycle ran or was skipped. */
  let base: { timeMs: number; identity: string; full?: Full; state: BaseState } | undefined;
  let earliestMs = Number.POSITIVE_INFINITY;
  const iso = (ms: number) => new Date(ms).toISOString();

  const prune = () => {
    if (base === undefined) return;
    for (const t of images.keys()) if (t < base.timeMs - baselineMs) images.delete(t);
  };

  /** The cycle of the base, when its earlier frame is here: run, or a grid mismatch. */
  const tryBase = (): Observation<Full> => {
    const b = base!;
    const earlierMs = b.timeMs - baselineMs;
    const earlier = images.get(earlierMs);
    const latest = images.get(b.timeMs);
    if (earlier === undefined || latest === undefined) return { skipped: [] };
    if (earlier.identity !== b.identity) {
      b.state = 'done';
      b.full = undefined;
      const detail = `the frame at ${iso(earlierMs)} is ${earlier.identity}, the base ${b.identity}`;
      return { skipped: [{ baseMs: b.timeMs, reason: 'grid-mismatch', detail }] };
    }
    b.state = 'running';
    return {
      skipped: [],
      run: { baseMs: b.timeMs, full: b.full!, earlier: earlier.image, latest: latest.image },
    };
  };

  return {
    needs: (timeMs) => base === undefined || timeMs >= base.timeMs - baselineMs,
    observe(frame) {
      const { timeMs, identity } = frame;
      const sawOlder = (ms: number) => earliestMs < ms;
      const older = base && sawOlder(base.timeMs - baselineMs);
      earliestMs = Math.min(earliestMs, timeMs);
      if (base !== undefined && timeMs === base.timeMs) return { skipped: [] }; // seen already
      if (base !== undefined && timeMs < base.timeMs) {
        const skipped: SkippedBase[] = [
          {
            baseMs: timeMs,
            reason: 'superseded',
            detail: `the newer frame of ${iso(base.timeMs)} was observed first`,
          },
        ];
        if (timeMs < base.timeMs - baselineMs || frame.image === undefined) return { skipped };
        images.set(timeMs, { image: frame.image, identity });
        if (base.state !== 'waiting' || timeMs !== base.timeMs - baselineMs) return { skipped };
        const outcome = tryBase();
        return { skipped: [...skipped, ...outcome.skipped], run: outcome.run };
      }
      if (frame.image === undefined || frame.full === undefined)
        throw new RangeError('a new base needs its echo image and payload');
      const skipped: SkippedBase[] = [];
      if (base?.state === 'waiting') {
        const missing = `no frame at ${iso(base.timeMs - baselineMs)}, ${baselineMs / 60_000} min before the base`;
        skipped.push(
          older
            ? { baseMs: base.timeMs, reason: 'missing-earlier-frame', detail: missing }
            : {
                baseMs: base.timeMs,
                reason: 'superseded',
                detail: `${missing} yet (the first frames seen), and the newer frame of ${iso(timeMs)} came`,
              },
        );
      }
      // A running cycle is the caller's to abandon (it reports `finished`); it is not kept.
      base = { timeMs, identity, full: frame.full, state: 'waiting' };
      images.set(timeMs, { image: frame.image, identity });
      prune();
      const outcome = tryBase();
      return { skipped: [...skipped, ...outcome.skipped], run: outcome.run };
    },
    remember({ timeMs, identity, image }) {
      if (base !== undefined && (timeMs < base.timeMs - baselineMs || timeMs === base.timeMs))
        return { skipped: [] };
      images.set(timeMs, { image, identity });
      earliestMs = Math.min(earliestMs, timeMs);
      if (base?.state !== 'waiting' || timeMs !== base.timeMs - baselineMs) return { skipped: [] };
      return tryBase();
    },
    finished(baseMs) {
      if (base?.timeMs !== baseMs) return;
      base.state = 'done';
      base.full = undefined;
    },
    isRunning: (baseMs) => base?.timeMs === baseMs && base.state === 'running',
    kept: () => [...images.keys()].sort((a, b) => a - b),
    newest: () => base?.timeMs,
    holdsPayload: () => base?.full !== undefined,
  };
}
