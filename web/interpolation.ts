/**
 * Smooth animation: between two consecutive frames the page shows pictures interpolated along
 * the motion field (see motion-warp.ts), drawn on the GPU by a MapLibre custom layer placed
 * where the radar layers are (below the borders, warp-layer.ts), instead of jumping from one
 * frame to the next. Each picture is one draw call at the moment the map renders. The frames'
 * tiles come from what the map already loaded (`RadarFrames.tile`), so interpolation costs no
 * request in the usual case. Without a motion field (no nowcast published) it does nothing and
 * frames change as before.
 *
 * The field is the one of the listed nowcast (every lead of one base carries the same field):
 * it drives the interpolation between forecast frames and, as the best estimate of the current
 * motion, between past frames too.
 */
import type { Map as MapLibreMap } from 'maplibre-gl';
import type { RadarFrames } from '../src/client/map-frames';
import type { RadarMotionField } from '../src/client/motion-field';
import type { RadarTimelineFrame } from '../src/client/timeline';
import { displacementGrid, type MercatorImage } from './motion-warp';
import type { FrameTransition } from './player';
import { drawMosaic, viewLayout, type MosaicLayout } from './view-mosaic';
import { createWarpLayer, type WarpPicture } from './warp-layer';

const LAYER = 'radar-interpolated-layer';
/** Pixels per side of a block sharing one displacement (the field's cells are far larger). */
const BLOCK = 8;
/** Frame pictures kept: the running transition's two, the next one's B, and one spare. */
const KEPT_FRAMES = 4;
/** Frames further apart than this are not interpolated (a gap in the list). */
const MAX_GAP_MINUTES = 30;

/** What the interpolation measured (the browser test reports these figures). */
export interface InterpolationStats {
  /** Transitions that drew at least one interpolated picture. */
  readonly transitions: number;
  /** Interpolated pictures drawn while transitions ran (held pictures not counted). */
  readonly pictures: number;
  /** Mean and longest time the page spends on one picture (its draw call; uploads), ms. */
  readonly meanPictureMs: number;
  readonly maxPictureMs: number;
  /**
   * Mean time between two consecutive pictures of one transition on screen, ms: everything
   * the browser does per animation frame (the picture and the map's render) counted.
   */
  readonly meanIntervalMs: number;
  /**
   * Mean and longest time to gather and decode both frames' tiles before a transition (or a
   * held picture), ms: what a transition waits when its frames were not drawn ahead.
   */
  readonly meanPrepareMs: number;
  readonly maxPrepareMs: number;
  /** Frame pictures drawn from tiles (each frame once while playing: B is the next one's A). */
  readonly framesDrawn: number;
}

/** The interpolation of one session. */
export interface Interpolator {
  /** The motion field to interpolate along; `undefined` turns interpolation off. */
  setMotion(field: RadarMotionField | undefined): void;
  hasMotion(): boolean;
  /** The player's transition: interpolated pictures from `from` to `to` over `durationMs`. */
  readonly transition: FrameTransition;
  /** Draws the frames of the next transition ahead, so it starts at once (the player's `warm`). */
  warm(from: RadarTimelineFrame, to: RadarTimelineFrame): void;
  /**
   * Shows the picture at `t` between two on-map frames and keeps it until {@link release}
   * (for tests and inspection); false when it cannot interpolate (no field, too far apart).
   */
  hold(from: RadarTimelineFrame, to: RadarTimelineFrame, t: number): Promise<boolean>;
  /** Hides a held picture and shows `shown` again. */
  release(shown: RadarTimelineFrame | undefined): void;
  stats(): InterpolationStats;
  /** Forgets the frames drawn so far (their colours changed: another scheme). */
  forget(): void;
  close(): void;
}

/** Options of {@link createInterpolator}. */
export interface InterpolatorOptions {
  readonly map: MapLibreMap;
  readonly frames: Pick<RadarFrames, 'tile' | 'layerId' | 'show' | 'preload'>;
  /** Layer the picture goes below (the radar layers' `beforeId`). */
  readonly beforeId: string;
  /** Length of one transition (default 350 ms, within the player's 500 ms per frame). */
  readonly durationMs?: number;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });

/** Creates the interpolator; it adds its source and layer on first use. */
export function createInterpolator(options: InterpolatorOptions): Interpolator {
  const { map, frames, beforeId } = options;
  const durationMs = options.durationMs ?? 350;
  let field: RadarMotionField | undefined;
  const totals = {
    transitions: 0,
    pictures: 0,
    pictureMs: 0,
    maxPictureMs: 0,
    prepares: 0,
    maxPrepareMs: 0,
    framesDrawn: 0,
    intervals: 0,
    intervalMs: 0,
  };
  let prepareMs = 0;
  /** When the running transition's last picture was drawn (undefined: none running). */
  let lastPicture: number | undefined;
  const warp = createWarpLayer({
    id: LAYER,
    map,
    onPicture(ms) {
      if (lastPicture === undefined) return; // a held picture, not animation
      totals.pictures++;
      totals.pictureMs += ms;
      totals.maxPictureMs = Math.max(totals.maxPictureMs, ms);
      const now = performance.now();
      if (lastPicture > 0) {
        totals.intervals++;
        totals.intervalMs += now - lastPicture;
      }
      lastPicture = now;
    },
  });

  /** Whether two frames can be interpolated: a motion field, and a short step forward in time. */
  const interpolable = (from: RadarTimelineFrame, to: RadarTimelineFrame) => {
    const minutes = (to.validMs - from.validMs) / 60_000;
    return field !== undefined && minutes > 0 && minutes <= MAX_GAP_MINUTES;
  };

  /**
   * The frames drawn last (or being drawn), by key and layout, least recently used first: a
   * transition's B is the next one's A, and {@link Interpolator.warm} draws the next B while
   * the current transition runs, so the running one's two and the next one's B are kept.
   * Draws are not aborted with a transition: a frame drawn is kept for the next one.
   */
  const drawn = new Map<string, Promise<Uint8ClampedArray>>();
  const drawCached = (key: string, at: MosaicLayout) => {
    const id = `${key} ${JSON.stringify(at)}`;
    let kept = drawn.get(id);
    if (kept === undefined) {
      kept = drawMosaic(frames, key, at);
      kept.catch(() => drawn.delete(id));
      totals.framesDrawn++;
    }
    drawn.delete(id); // to the end: most recently used
    drawn.set(id, kept);
    while (drawn.size > KEPT_FRAMES) drawn.delete(drawn.keys().next().value!);
    return kept;
  };

  /** Everything one transition needs, or undefined when it cannot interpolate. */
  const prepare = async (
    from: RadarTimelineFrame,
    to: RadarTimelineFrame,
    signal: AbortSignal,
  ): Promise<WarpPicture | undefined> => {
    if (!interpolable(from, to)) return undefined;
    const minutes = (to.validMs - from.validMs) / 60_000;
    const motion = field!;
    const started = performance.now();
    frames.preload([from.key, to.key]); // on the map, so their tiles can be read
    const at = viewLayout(map, frames.layerId(from.key));
    const [a, b] = await Promise.all([drawCached(from.key, at), drawCached(to.key, at)]);
    if (signal.aborted) return undefined;
    const width = (at.x1 - at.x0 + 1) * 256 * at.scale;
    const height = (at.y1 - at.y0 + 1) * 256 * at.scale;
    const image: MercatorImage = {
      z: at.z,
      left: at.x0 * 256,
      top: at.y0 * 256,
      scale: at.scale,
      width,
      height,
    };
    const { dx, dy } = displacementGrid(motion, image, minutes, BLOCK);
    if (!map.getLayer(LAYER)) map.addLayer(warp.layer, beforeId);
    const waited = performance.now() - started;
    prepareMs += waited;
    totals.maxPrepareMs = Math.max(totals.maxPrepareMs, waited);
    totals.prepares++;
    const bounds = [at.x0, at.y0, at.x1 + 1, at.y1 + 1].map((v) => v / at.n);
    return {
      width,
      height,
      a,
      b,
      block: BLOCK,
      dx,
      dy,
      bounds: bounds as [number, number, number, number],
    };
  };

  /** Hides `from` under the picture. */
  const hideFrame = (from: RadarTimelineFrame) =>
    map.setPaintProperty(frames.layerId(from.key), 'raster-opacity', 0);
  /** Hides the picture and shows `shown` again. */
  const hidePicture = (shown: RadarTimelineFrame | undefined) => {
    warp.hide();
    if (shown) frames.show(shown.key);
  };

  let held: AbortController | undefined;

  return {
    setMotion(next) {
      field = next;
    },
    hasMotion: () => field !== undefined,
    warm(from, to) {
      if (!interpolable(from, to)) return;
      frames.preload([from.key, to.key]);
      const at = viewLayout(map, frames.layerId(from.key));
      void Promise.all([drawCached(from.key, at), drawCached(to.key, at)]).catch(() => undefined);
    },
    async transition(from, to, signal) {
      const prepared = await prepare(from, to, signal);
      if (prepared === undefined || signal.aborted) return;
      totals.transitions++;
      const started = performance.now();
      // The map renders continuously meanwhile; each render draws the picture of its moment.
      lastPicture = 0;
      warp.show(prepared, () => (performance.now() - started) / durationMs, true);
      hideFrame(from);
      try {
        await sleep(durationMs, signal);
      } finally {
        lastPicture = undefined;
        hidePicture(from);
      }
    },
    async hold(from, to, t) {
      held?.abort();
      const controller = new AbortController();
      held = controller;
      const prepared = await prepare(from, to, controller.signal);
      if (prepared === undefined || controller.signal.aborted) return false;
      warp.show(prepared, () => t, false);
      hideFrame(from);
      return true;
    },
    release(shown) {
      held?.abort();
      held = undefined;
      hidePicture(shown);
    },
    stats: () => ({
      transitions: totals.transitions,
      pictures: totals.pictures,
      meanPictureMs: totals.pictures ? totals.pictureMs / totals.pictures : 0,
      maxPictureMs: totals.maxPictureMs,
      meanIntervalMs: totals.intervals ? totals.intervalMs / totals.intervals : 0,
      meanPrepareMs: totals.prepares ? prepareMs / totals.prepares : 0,
      maxPrepareMs: totals.maxPrepareMs,
      framesDrawn: totals.framesDrawn,
    }),
    forget() {
      drawn.clear();
      warp.forget();
    },
    close() {
      held?.abort();
      drawn.clear();
      if (map.getLayer(LAYER)) map.removeLayer(LAYER);
    },
  };
}
