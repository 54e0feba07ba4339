/**
 * What the Leaflet and OpenLayers example pages share besides the client and the viewer's
 * packaged base map (`web/page-json.ts`, `src/viewer/basemap.ts`): the frame-time label, the
 * frame layers, and the animation of the latest frames. The animation is the viewer's own player (`web/player.ts`: waits for a
 * frame's tiles before showing it, pauses on the latest) over one hidden-or-shown layer per
 * frame (`createFrameLayers`, given each library's calls), kept current by polling
 * `/status.json`.
 */
import type { RadarClient } from '../../src/client';
import { watchStatus } from '../../src/client';
import { createPlayer } from '../player';
import { formatUtc } from '../time-format';
import { showError } from './example-session';

/** Frames in the loop: the last 20 minutes at the usual 2-minute cadence. */
const LOOP_FRAMES = 10;

declare global {
  interface Window {
    /** For the browser test: where a lon/lat lies on the page. */
    radarExample?: { project(lon: number, lat: number): { x: number; y: number } };
  }
}

/** One layer per frame, as a map library provides them; hidden layers still load their tiles. */
export interface FrameLayers {
  /** Shows `timestamp`'s layer (creating it if needed) and hides the one shown before. */
  show(timestamp: string): void;
  /** Creates the layers of `timestamps` hidden, so their tiles load ahead of being shown. */
  preload(timestamps: Iterable<string>): void;
  /** True once the layer's tiles for the current view have loaded. */
  isLoaded(timestamp: string): boolean;
  /** Removes the layers of frames not in `timestamps`. */
  retain(timestamps: readonly string[]): void;
}

/** What a map library does with one frame's layer `L` (its own layer, or an entry around it). */
export interface FrameLayerCalls<L> {
  /** Adds `timestamp`'s layer to the map at opacity 0 (its tiles start loading). */
  create(timestamp: string): L;
  setOpacity(layer: L, opacity: number): void;
  /** Takes the layer off the map. */
  remove(layer: L): void;
  /** True once the layer's tiles for the current view have loaded. */
  isLoaded(layer: L): boolean;
}

/**
 * The frames as one layer each, created on first use: the shown one at opacity 1, the others
 * at 0 (still loading, so each frame is ready before it is shown).
 */
export function createFrameLayers<L>(calls: FrameLayerCalls<L>): FrameLayers {
  const layers = new Map<string, L>();
  let shown: string | undefined;
  const ensure = (timestamp: string): L => {
    let layer = layers.get(timestamp);
    if (layer === undefined) {
      layer = calls.create(timestamp);
      layers.set(timestamp, layer);
    }
    return layer;
  };
  return {
    show(timestamp) {
      calls.setOpacity(ensure(timestamp), 1);
      if (shown !== undefined && shown !== timestamp) {
        const before = layers.get(shown);
        if (before !== undefined) calls.setOpacity(before, 0);
      }
      shown = timestamp;
    },
    preload(timestamps) {
      for (const timestamp of timestamps) ensure(timestamp);
    },
    isLoaded(timestamp) {
      const layer = layers.get(timestamp);
      return layer !== undefined && calls.isLoaded(layer);
    },
    retain(timestamps) {
      for (const [timestamp, layer] of layers)
        if (!timestamps.includes(timestamp)) {
          calls.remove(layer);
          layers.delete(timestamp);
        }
    },
  };
}

/** Writes the shown frame's time into `#time` (text in UTC, digits in `data-timestamp`). */
function showFrameTime(timestamp: string): void {
  const label = document.getElementById('time');
  if (!label) return;
  label.textContent = formatUtc(timestamp);
  label.dataset.timestamp = timestamp;
}

/** Plays the latest {@link LOOP_FRAMES} frames in a loop, following new ones as they appear. */
export function animateLatestFrames(client: RadarClient, layers: FrameLayers): void {
  const player = createPlayer({
    frames: layers,
    loopFrames: LOOP_FRAMES,
    onChange: (state) => {
      const frame = state.frames[state.index];
      if (frame !== undefined) showFrameTime(frame.valid);
    },
  });
  watchStatus(client, {
    onStatus: (status) => {
      const loop = status.timestamps.slice(0, LOOP_FRAMES).reverse(); // oldest first
      layers.retain(loop);
      // Observed frames only: these examples show no forecast frames.
      player.setFrames(client.timeline({ timestamps: loop, forecasts: [] }));
      if (player.state().index < 0) player.latest();
      player.play();
    },
    onError: showError,
  });
}
