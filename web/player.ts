/**
 * Which frame is on screen, and the animation. The player knows nothing of the DOM: it moves
 * an index over the timestamps (oldest first, as on the slider) and asks the frames to show
 * and preload. While playing it waits for the next frame's tiles (up to `maxWaitMs`) before
 * moving, so the loop does not flash blank frames, and pauses on the latest frame.
 */
import type { RadarFrames } from '../src/client/map-frames';

/** What the panel shows. */
export interface PlayerState {
  /** Timestamps, oldest first. */
  readonly timestamps: readonly string[];
  /** Index of the shown frame, -1 with no frames. */
  readonly index: number;
  readonly playing: boolean;
}

/** Options of {@link createPlayer}. */
export interface PlayerOptions {
  readonly frames: Pick<RadarFrames, 'show' | 'preload' | 'isLoaded'>;
  /** Called after every change of frame, list or play state. */
  readonly onChange: (state: PlayerState) => void;
  /** Time per frame while playing (default 500 ms). */
  readonly frameMs?: number;
  /** Extra pause on the latest frame (default 1500 ms). */
  readonly dwellMs?: number;
  /** Longest wait for a frame's tiles before moving on anyway (default 3000 ms). */
  readonly maxWaitMs?: number;
  /** Frames loaded ahead of the shown one while playing (default 3). */
  readonly preloadAhead?: number;
  /** Frames in the loop when play starts near the latest (default 30, an hour). */
  readonly loopFrames?: number;
}

/** The animation controls. */
export interface Player {
  /** New status list (oldest first); keeps the shown time, or follows the latest. */
  setTimestamps(timestamps: readonly string[]): void;
  seek(index: number): void;
  step(delta: number): void;
  latest(): void;
  play(): void;
  pause(): void;
  toggle(): void;
  state(): PlayerState;
  current(): string | undefined;
  close(): void;
}

/** Creates a paused player with no frames. */
export function createPlayer(options: PlayerOptions): Player {
  const frameMs = options.frameMs ?? 500;
  const dwellMs = options.dwellMs ?? 1500;
  const maxWaitMs = options.maxWaitMs ?? 3000;
  const preloadAhead = options.preloadAhead ?? 3;
  const loopFrames = options.loopFrames ?? 30;
  const { frames } = options;
  let timestamps: readonly string[] = [];
  let index = -1;
  let playing = false;
  let loopStart: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let waitingSince = 0;

  const state = (): PlayerState => ({ timestamps, index, playing });
  const changed = () => options.onChange(state());
  const last = () => timestamps.length - 1;

  const showIndex = (next: number) => {
    if (timestamps.length === 0) return;
    index = Math.max(0, Math.min(last(), next));
    frames.show(timestamps[index]!);
    changed();
  };

  const loopStartIndex = () => {
    const i = loopStart === undefined ? -1 : timestamps.indexOf(loopStart);
    return i >= 0 ? i : Math.max(0, timestamps.length - loopFrames);
  };

  const ahead = (from: number) => {
    const list: string[] = [];
    for (let k = 0; k < preloadAhead && k < timestamps.length; k++) {
      const i = from + k > last() ? loopStartIndex() + (from + k - last() - 1) : from + k;
      if (timestamps[i] !== undefined) list.push(timestamps[i]!);
    }
    return list;
  };

  const tick = () => {
    timer = undefined;
    if (!playing || timestamps.length < 2) return;
    const target = index >= last() ? loopStartIndex() : index + 1;
    const ts = timestamps[target]!;
    frames.preload(ahead(target));
    if (!frames.isLoaded(ts) && Date.now() - waitingSince < maxWaitMs) {
      timer = setTimeout(tick, 100);
      return;
    }
    showIndex(target);
    waitingSince = Date.now();
    timer = setTimeout(tick, index === last() ? frameMs + dwellMs : frameMs);
  };

  return {
    setTimestamps(next) {
      const shown = timestamps[index];
      const following = index === last();
      timestamps = [...next];
      if (timestamps.length === 0) {
        index = -1;
        changed();
        return;
      }
      if (following && !playing) return showIndex(last());
      const kept = shown === undefined ? -1 : timestamps.indexOf(shown);
      if (kept >= 0) {
        index = kept;
        changed();
        return;
      }
      // The shown frame expired: show the oldest remaining one after it (or the latest).
      const later = shown === undefined ? -1 : timestamps.findIndex((t) => t > shown);
      showIndex(later >= 0 ? later : last());
    },
    seek(i) {
      showIndex(i);
    },
    step(delta) {
      showIndex(index + delta);
    },
    latest() {
      showIndex(last());
    },
    play() {
      if (playing || timestamps.length < 2) return;
      playing = true;
      const start = Math.min(index, Math.max(0, timestamps.length - loopFrames));
      loopStart = timestamps[start];
      frames.preload(ahead(index >= last() ? start : index + 1));
      waitingSince = Date.now();
      changed();
      timer = setTimeout(tick, frameMs);
    },
    pause() {
      playing = false;
      clearTimeout(timer);
      timer = undefined;
      changed();
    },
    toggle() {
      if (playing) this.pause();
      else this.play();
    },
    state,
    current: () => timestamps[index],
    close() {
      playing = false;
      clearTimeout(timer);
    },
  };
}
