/**
 * Which frame is on screen, and the animation. The player knows nothing of the DOM: it moves
 * an index over the timeline (observed frames oldest first, then the forecast frames, as on the
 * slider) and asks the frames to show and preload. While playing it waits for the next frame's
 * tiles (up to `maxWaitMs`) before moving, so the loop does not flash blank frames, lets the
 * optional `transition` (the motion-compensated interpolation) run between two consecutive
 * frames, and pauses on the last frame before looping. "Latest" and following new frames mean
 * the latest OBSERVED frame: a forecast is never taken for the present.
 */
import type { RadarFrames } from '../src/client/map-frames';
import type { RadarTimelineFrame } from '../src/client/timeline';

/** What the panel shows. */
export interface PlayerState {
  /** The timeline: observed frames oldest first, then forecast frames. */
  readonly frames: readonly RadarTimelineFrame[];
  /** Index of the shown frame, -1 with no frames. */
  readonly index: number;
  readonly playing: boolean;
}

/**
 * Animates from the shown frame `from` to `to` (both loaded) and resolves when `to` may be
 * shown; resolves at once when it cannot interpolate. `signal` aborts it (pause, seek).
 */
export type FrameTransition = (
  from: RadarTimelineFrame,
  to: RadarTimelineFrame,
  signal: AbortSignal,
) => Promise<void>;

/** Options of {@link createPlayer}. */
export interface PlayerOptions {
  readonly frames: Pick<RadarFrames, 'show' | 'preload' | 'isLoaded'>;
  /** Called after every change of frame, list or play state. */
  readonly onChange: (state: PlayerState) => void;
  /** Runs between two consecutive frames while playing (not when the loop wraps). */
  readonly transition?: FrameTransition;
  /**
   * Told the transition after the one starting, as it starts (and the next one once a frame is
   * shown), so its frames are prepared while the current transition runs, not when it is due.
   */
  readonly warm?: (from: RadarTimelineFrame, to: RadarTimelineFrame) => void;
  /** Time per frame while playing (default 500 ms), any transition included. */
  readonly frameMs?: number;
  /** Extra pause on the last frame (default 1500 ms). */
  readonly dwellMs?: number;
  /** Longest wait for a frame's tiles before moving on anyway (default 3000 ms). */
  readonly maxWaitMs?: number;
  /** Frames loaded ahead of the shown one while playing (default 3). */
  readonly preloadAhead?: number;
  /** Observed frames in the loop when play starts near the latest (default 30, an hour). */
  readonly loopFrames?: number;
}

/** The animation controls. */
export interface Player {
  /** New timeline; keeps the shown frame, or follows the latest observed frame. */
  setFrames(frames: readonly RadarTimelineFrame[]): void;
  seek(index: number): void;
  step(delta: number): void;
  /** Shows the latest observed frame. */
  latest(): void;
  play(): void;
  pause(): void;
  toggle(): void;
  state(): PlayerState;
  /** The shown frame. */
  current(): RadarTimelineFrame | undefined;
  close(): void;
}

/** Index of the latest observed frame of `frames` (-1 when there is none). */
export function latestObservedIndex(frames: readonly RadarTimelineFrame[]): number {
  for (let i = frames.length - 1; i >= 0; i--) if (frames[i]!.kind === 'observed') return i;
  return -1;
}

/** Creates a paused player with no frames. */
export function createPlayer(options: PlayerOptions): Player {
  const frameMs = options.frameMs ?? 500;
  const dwellMs = options.dwellMs ?? 1500;
  const maxWaitMs = options.maxWaitMs ?? 3000;
  const preloadAhead = options.preloadAhead ?? 3;
  const loopFrames = options.loopFrames ?? 30;
  const { frames } = options;
  let timeline: readonly RadarTimelineFrame[] = [];
  let index = -1;
  let playing = false;
  let loopStart: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let waitingSince = 0;
  let transition: AbortController | undefined;

  const state = (): PlayerState => ({ frames: timeline, index, playing });
  const changed = () => options.onChange(state());
  const last = () => timeline.length - 1;
  const keyAt = (i: number) => timeline[i]!.key;
  const stopTransition = () => {
    transition?.abort();
    transition = undefined;
  };

  const showIndex = (next: number) => {
    if (timeline.length === 0) return;
    stopTransition();
    index = Math.max(0, Math.min(last(), next));
    frames.show(keyAt(index));
    changed();
  };

  const loopStartIndex = () => {
    const i = loopStart === undefined ? -1 : timeline.findIndex((f) => f.key === loopStart);
    return i >= 0 ? i : Math.max(0, latestObservedIndex(timeline) + 1 - loopFrames);
  };

  const ahead = (from: number) => {
    const list: string[] = [];
    for (let k = 0; k < preloadAhead && k < timeline.length; k++) {
      const i = from + k > last() ? loopStartIndex() + (from + k - last() - 1) : from + k;
      if (timeline[i] !== undefined) list.push(keyAt(i));
    }
    return list;
  };

  const tick = () => {
    timer = undefined;
    if (!playing || timeline.length < 2) return;
    const wraps = index >= last();
    const target = wraps ? loopStartIndex() : index + 1;
    const key = keyAt(target);
    frames.preload(ahead(target));
    if (!frames.isLoaded(key) && Date.now() - waitingSince < maxWaitMs) {
      timer = setTimeout(tick, 100);
      return;
    }
    const startedMs = Date.now();
    const arrive = () => {
      if (!playing) return;
      showIndex(target);
      waitingSince = Date.now();
      const next = timeline[index + 1];
      if (next !== undefined && frames.isLoaded(next.key)) options.warm?.(timeline[index]!, next);
      const rest = Math.max(0, frameMs - (Date.now() - startedMs));
      timer = setTimeout(tick, index === last() ? rest + dwellMs : rest);
    };
    const from = timeline[index];
    if (wraps || options.transition === undefined || from === undefined || !frames.isLoaded(key))
      return arrive();
    const controller = new AbortController();
    transition = controller;
    const after = timeline[target + 1];
    if (after !== undefined && frames.isLoaded(after.key)) options.warm?.(timeline[target]!, after);
    options
      .transition(from, timeline[target]!, controller.signal)
      .catch(() => undefined)
      .then(() => {
        if (transition === controller) arrive();
      });
  };

  return {
    setFrames(next) {
      const shown = timeline[index];
      const following = index >= 0 && index === latestObservedIndex(timeline);
      timeline = [...next];
      if (timeline.length === 0) {
        index = -1;
        stopTransition();
        changed();
        return;
      }
      if (following && !playing) return showIndex(Math.max(0, latestObservedIndex(timeline)));
      const kept = shown === undefined ? -1 : timeline.findIndex((f) => f.key === shown.key);
      if (kept >= 0) {
        index = kept;
        changed();
        return;
      }
      // The shown frame left the list (expired, or a forecast of an older nowcast): show the
      // first frame valid at or after its time, or the latest observed one.
      const later = shown === undefined ? -1 : timeline.findIndex((f) => f.valid >= shown.valid);
      showIndex(later >= 0 ? later : Math.max(0, latestObservedIndex(timeline)));
    },
    seek(i) {
      showIndex(i);
    },
    step(delta) {
      showIndex(index + delta);
    },
    latest() {
      showIndex(Math.max(0, latestObservedIndex(timeline)));
    },
    play() {
      if (playing || timeline.length < 2) return;
      playing = true;
      const start = Math.min(index, Math.max(0, latestObservedIndex(timeline) + 1 - loopFrames));
      loopStart = timeline[start]?.key;
      frames.preload(ahead(index >= last() ? start : index + 1));
      const next = timeline[index + 1];
      if (next !== undefined && frames.isLoaded(next.key)) options.warm?.(timeline[index]!, next);
      waitingSince = Date.now();
      changed();
      timer = setTimeout(tick, frameMs);
    },
    pause() {
      playing = false;
      clearTimeout(timer);
      timer = undefined;
      if (transition !== undefined) {
        // Back to the frame the interrupted transition started from.
        stopTransition();
        if (index >= 0) frames.show(keyAt(index));
      }
      changed();
    },
    toggle() {
      if (playing) this.pause();
      else this.play();
    },
    state,
    current: () => timeline[index],
    close() {
      playing = false;
      clearTimeout(timer);
      stopTransition();
    },
  };
}
