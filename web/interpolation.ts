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

const SOURCE = 'radar-interpolated';
const LAYER = 'radar-interpolated-layer';
/** Most tiles per frame drawn for one interpolation (a 1280 x 800 view needs about 30). */
const MAX_TILES = 64;
/** Most pixels of the interpolated picture; larger views are drawn at half resolution. */
const MAX_PIXELS = 1_200_000;
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

const mercatorY = (lat: number) =>
  Math.log(Math.tan(Math.PI / 4 + (Math.min(85.05, Math.max(-85.05, lat)) * Math.PI) / 360));
const tileLat = (y: number, n: number) =>
  (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI;
const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

/** Creates the interpolator; it adds its source and layer on first use. */
export function createInterpolator(options: InterpolatorOptions): Interpolator {
  const { map, frames, beforeId } = options;
  const durationMs = options.durationMs ?? 350;
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d')!;
  let field: RadarMotionField | undefined;
  const totals = { transitions: 0, pictures: 0, pictureMs: 0, maxPictureMs: 0, prepares: 0 };
  let prepareMs = 0;

  /** The tiles' zoom and range covering the view, and the scale to draw them at. */
  const layout = (key: string) => {
    const layer = map.getLayer(frames.layerId(key));
    const source = layer
      ? (map.getSource(layer.source) as { maxzoom?: number } | undefined)
      : undefined;
    // The tile zoom MapLibre loads for a raster source of 256 px tiles: its zoom counts 512 px
    // worlds, so one more, rounded (raster sources round).
    let z = Math.max(0, Math.min(source?.maxzoom ?? 7, Math.round(map.getZoom() + 1)));
    const bounds = map.getBounds();
    for (;;) {
      const n = 2 ** z;
      const clamp = (v: number) => Math.max(0, Math.min(n - 1, Math.floor(v)));
      const x0 = clamp(((bounds.getWest() + 180) / 360) * n);
      const x1 = clamp(((bounds.getEast() + 180) / 360) * n);
      const y0 = clamp(((1 - mercatorY(bounds.getNorth()) / Math.PI) / 2) * n);
      const y1 = clamp(((1 - mercatorY(bounds.getSouth()) / Math.PI) / 2) * n);
      const count = (x1 - x0 + 1) * (y1 - y0 + 1);
      if (count <= MAX_TILES || z === 0) {
        const pixels = count * 256 * 256;
        const scale = pixels > MAX_PIXELS ? 0.5 : 1;
        return { z, n, x0, x1, y0, y1, scale };
      }
      z--;
    }
  };

  /** The last frames drawn, by key and layout: a transition's B is the next one's A. */
  const drawn = new Map<string, Uint8ClampedArray>();
  const drawCached = async (
    key: string,
    at: ReturnType<typeof layout>,
    signal: AbortSignal,
  ): Promise<Uint8ClampedArray> => {
    const id = `${key} ${JSON.stringify(at)}`;
    const kept = drawn.get(id);
    if (kept !== undefined) return kept;
    const rgba = await draw(key, at, signal);
    drawn.set(id, rgba);
    while (drawn.size > 2) drawn.delete(drawn.keys().next().value!);
    return rgba;
  };

  /** One frame's tiles drawn into an RGBA image of the layout. */
  const draw = async (
    key: string,
    at: ReturnType<typeof layout>,
    signal: AbortSignal,
  ): Promise<Uint8ClampedArray> => {
    const side = 256 * at.scale;
    const mosaic = document.createElement('canvas');
    mosaic.width = (at.x1 - at.x0 + 1) * side;
    mosaic.height = (at.y1 - at.y0 + 1) * side;
    const ctx = mosaic.getContext('2d', { willReadFrequently: true })!;
    ctx.imageSmoothingEnabled = false;
    const jobs: Promise<void>[] = [];
    for (let y = at.y0; y <= at.y1; y++)
      for (let x = at.x0; x <= at.x1; x++)
        jobs.push(
          frames.tile(key, at.z, x, y, signal).then(async (png) => {
            if (png === undefined) return;
            const bitmap = await createImageBitmap(
              new Blob([png as BlobPart], { type: 'image/png' }),
            );
            ctx.drawImage(bitmap, (x - at.x0) * side, (y - at.y0) * side, side, side);
            bitmap.close();
          }),
        );
    await Promise.all(jobs);
    return ctx.getImageData(0, 0, mosaic.width, mosaic.height).data;
  };

  /** Everything one transition needs, or undefined when it cannot interpolate. */
  const prepare = async (
    from: RadarTimelineFrame,
    to: RadarTimelineFrame,
    signal: AbortSignal,
  ): Promise<Prepared | undefined> => {
    const minutes = (to.validMs - from.validMs) / 60_000;
    if (field === undefined || minutes <= 0 || minutes > MAX_GAP_MINUTES) return undefined;
    const motion = field;
    const started = performance.now();
    frames.preload([from.key, to.key]); // on the map, so their tiles can be read
    const at = layout(from.key);
    const [a, b] = await Promise.all([
      drawCached(from.key, at, signal),
      drawCached(to.key, at, signal),
    ]);
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
    const coordinates: [[number, number], [number, number], [number, number], [number, number]] =
      (() => {
        const west = (at.x0 / at.n) * 360 - 180;
        const east = ((at.x1 + 1) / at.n) * 360 - 180;
        const north = tileLat(at.y0, at.n);
        const south = tileLat(at.y1 + 1, at.n);
        return [
          [west, north],
          [east, north],
          [east, south],
          [west, south],
        ];
      })();
    if (map.getLayer(LAYER)) map.removeLayer(LAYER);
    if (map.getSource(SOURCE)) map.removeSource(SOURCE);
    map.addSource(SOURCE, { type: 'canvas', canvas, coordinates, animate: true });
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
    async transition(from, to, signal) {
      const prepared = await prepare(from, to, signal);
      if (prepared === undefined || signal.aborted) return;
      totals.transitions++;
      const started = performance.now();
      picture(prepared, 0);
      showPicture(from, true);
      try {
        for (;;) {
          await nextFrame();
          const t = (performance.now() - started) / durationMs;
          if (signal.aborted || t >= 1) break;
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
