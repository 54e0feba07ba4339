/**
 * Smooth animation: between two consecutive frames the page shows pictures interpolated along
 * the motion field (see motion-warp.ts), in a MapLibre canvas source placed where the radar
 * layers are (below the borders), instead of jumping from one frame to the next. The frames'
 * tiles come from what the map already loaded (`RadarFrames.tile`), so interpolation costs no
 * request in the usual case. Without a motion field (no nowcast published) it does nothing and
 * frames change as before.
 *
 * The field is the one of the listed nowcast (every lead of one base carries the same field):
 * it drives the interpolation between forecast frames and, as the best estimate of the current
 * motion, between past frames too.
 */
import type { CanvasSource, Map as MapLibreMap } from 'maplibre-gl';
import type { RadarFrames } from '../src/client/map-frames';
import type { RadarMotionField } from '../src/client/motion-field';
import type { RadarTimelineFrame } from '../src/client/timeline';
import { displacementGrid, warpBlend, type MercatorImage, type WarpPair } from './motion-warp';
import type { FrameTransition } from './player';
import { drawMosaic, mosaicCorners, viewLayout, type MosaicLayout } from './view-mosaic';

const SOURCE = 'radar-interpolated';
const LAYER = 'radar-interpolated-layer';
/** Pixels per side of a block sharing one displacement (the field's cells are far larger). */
const BLOCK = 8;
/** Frames further apart than this are not interpolated (a gap in the list). */
const MAX_GAP_MINUTES = 30;

/** What the interpolation measured (the browser test reports these figures). */
export interface InterpolationStats {
  /** Transitions that drew at least one interpolated picture. */
  readonly transitions: number;
  /** Interpolated pictures drawn. */
  readonly pictures: number;
  /** Mean and longest time to compute and draw one picture, ms. */
  readonly meanPictureMs: number;
  readonly maxPictureMs: number;
  /**
   * Mean time between two consecutive pictures of one transition on screen, ms: everything
   * the browser does per animation frame (the picture and the map's render) counted.
   */
  readonly meanIntervalMs: number;
  /** Mean time to gather and decode both frames' tiles before a transition, ms. */
  readonly meanPrepareMs: number;
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

interface Prepared {
  readonly pair: WarpPair;
  readonly out: ImageData;
}

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

/** Creates the interpolator; it adds its source and layer on first use. */
export function createInterpolator(options: InterpolatorOptions): Interpolator {
  const { map, frames, beforeId } = options;
  const durationMs = options.durationMs ?? 350;
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d')!;
  let field: RadarMotionField | undefined;
  const totals = {
    transitions: 0,
    pictures: 0,
    pictureMs: 0,
    maxPictureMs: 0,
    prepares: 0,
    intervals: 0,
    intervalMs: 0,
  };
  let prepareMs = 0;

  /** Whether two frames can be interpolated: a motion field, and a short step forward in time. */
  const interpolable = (from: RadarTimelineFrame, to: RadarTimelineFrame) => {
    const minutes = (to.validMs - from.validMs) / 60_000;
    return field !== undefined && minutes > 0 && minutes <= MAX_GAP_MINUTES;
  };

  /**
   * The last frames drawn (or being drawn), by key and layout: a transition's B is the next
   * one's A, and {@link Interpolator.warm} draws the next B while the current frame is shown.
   * Draws are not aborted with a transition: a frame drawn is kept for the next one.
   */
  const drawn = new Map<string, Promise<Uint8ClampedArray>>();
  const drawCached = (key: string, at: MosaicLayout) => {
    const id = `${key} ${JSON.stringify(at)}`;
    let kept = drawn.get(id);
    if (kept === undefined) {
      kept = drawMosaic(frames, key, at);
      kept.catch(() => drawn.delete(id));
      drawn.set(id, kept);
      while (drawn.size > 3) drawn.delete(drawn.keys().next().value!);
    }
    return kept;
  };

  /** Everything one transition needs, or undefined when it cannot interpolate. */
  const prepare = async (
    from: RadarTimelineFrame,
    to: RadarTimelineFrame,
    signal: AbortSignal,
  ): Promise<Prepared | undefined> => {
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
    canvas.width = width;
    canvas.height = height;
    const coordinates = mosaicCorners(at);
    if (map.getLayer(LAYER)) map.removeLayer(LAYER);
    if (map.getSource(SOURCE)) map.removeSource(SOURCE);
    // Added paused: MapLibre re-reads the canvas on every render only while it is shown.
    map.addSource(SOURCE, { type: 'canvas', canvas, coordinates, animate: false });
    map.addLayer(
      {
        id: LAYER,
        type: 'raster',
        source: SOURCE,
        paint: { 'raster-opacity': 0, 'raster-fade-duration': 0, 'raster-resampling': 'nearest' },
      },
      beforeId,
    );
    prepareMs += performance.now() - started;
    totals.prepares++;
    return {
      pair: { width, height, a, b, block: BLOCK, dx, dy },
      out: context.createImageData(width, height),
    };
  };

  const picture = (prepared: Prepared, t: number) => {
    const started = performance.now();
    warpBlend(prepared.pair, t, prepared.out.data);
    context.putImageData(prepared.out, 0, 0);
    const ms = performance.now() - started;
    totals.pictures++;
    totals.pictureMs += ms;
    totals.maxPictureMs = Math.max(totals.maxPictureMs, ms);
  };

  /** Shows the picture instead of `from`, or `from` again (`on` false). */
  const showPicture = (from: RadarTimelineFrame | undefined, on: boolean) => {
    const source = map.getSource(SOURCE) as CanvasSource | undefined;
    if (map.getLayer(LAYER)) map.setPaintProperty(LAYER, 'raster-opacity', on ? 1 : 0);
    if (on) {
      source?.play();
      if (from) map.setPaintProperty(frames.layerId(from.key), 'raster-opacity', 0);
    } else {
      source?.pause();
      if (from) frames.show(from.key);
    }
    map.triggerRepaint();
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
      picture(prepared, 0);
      showPicture(from, true);
      let last = started;
      try {
        for (;;) {
          await nextFrame();
          const now = performance.now();
          const t = (now - started) / durationMs;
          if (signal.aborted || t >= 1) break;
          totals.intervals++;
          totals.intervalMs += now - last;
          last = now;
          picture(prepared, t);
        }
      } finally {
        showPicture(from, false);
      }
    },
    async hold(from, to, t) {
      held?.abort();
      const controller = new AbortController();
      held = controller;
      const prepared = await prepare(from, to, controller.signal);
      if (prepared === undefined || controller.signal.aborted) return false;
      picture(prepared, t);
      showPicture(from, true);
      return true;
    },
    release(shown) {
      held?.abort();
      held = undefined;
      showPicture(shown, false);
    },
    stats: () => ({
      transitions: totals.transitions,
      pictures: totals.pictures,
      meanPictureMs: totals.pictures ? totals.pictureMs / totals.pictures : 0,
      maxPictureMs: totals.maxPictureMs,
      meanIntervalMs: totals.intervals ? totals.intervalMs / totals.intervals : 0,
      meanPrepareMs: totals.prepares ? prepareMs / totals.prepares : 0,
    }),
    forget: () => drawn.clear(),
    close() {
      held?.abort();
      drawn.clear();
      if (map.getLayer(LAYER)) map.removeLayer(LAYER);
      if (map.getSource(SOURCE)) map.removeSource(SOURCE);
    },
  };
}
