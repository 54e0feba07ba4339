/**
 * What the Leaflet and OpenLayers example pages share besides the client: the packaged base map
 * (`basemap.json`, the viewer's, no network tiles), the frame-time label, and the animation of
 * the latest frames. The animation is the viewer's own player (`web/player.ts`: waits for a
 * frame's tiles before showing it, pauses on the latest) over one hidden-or-shown layer per
 * frame, kept current by polling `/status.json`.
 */
import type { RadarClient } from '../../src/client';
import { watchStatus } from '../../src/client';
import type { Basemap } from '../../src/viewer/basemap';
import { createPlayer } from '../player';
import { formatUtc } from '../time-format';
import { showError } from './example-session';

/** Frames in the loop: the last 20 minutes at the usual 2-minute cadence. */
const LOOP_FRAMES = 10;

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

/** The base map the viewer ships, read from beside the page. */
export async function fetchBasemap(): Promise<Basemap> {
  const response = await fetch(new URL('basemap.json', location.href));
  if (!response.ok) throw new Error(`basemap.json: HTTP ${response.status}`);
  return (await response.json()) as Basemap;
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
      const timestamp = state.timestamps[state.index];
      if (timestamp !== undefined) showFrameTime(timestamp);
    },
  });
  watchStatus(client, {
    onStatus: (status) => {
      const loop = status.timestamps.slice(0, LOOP_FRAMES).reverse(); // oldest first
      layers.retain(loop);
      player.setTimestamps(loop);
      if (player.state().index < 0) player.latest();
      player.play();
    },
    onError: showError,
  });
}
