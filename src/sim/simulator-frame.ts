/**
 * A simulated radar frame: timestamp in, archive out, made of the simulator's grid at that
 * instant and the one renderer. This is the unit of work the simulator's render pool runs off
 * the main thread (its job module is this file).
 */
import { parseTimestamp } from '../domain/timestamps';
import { createRenderPool, type RenderPool } from '../render/render-pool';
import { renderFrame } from '../render/render-frame';
import {
  type FrameLoader,
  jobModulePath,
  type LoadedFrame,
  type WorkerJob,
} from '../render/worker-job';
import { checkSimSetting, SIM_LIMITS } from './limits';
import { createSimulatedGrids } from './simulated-grid';

/** Options of {@link createSimulatorFrameRenderer}; plain data so they can cross to a worker. */
export interface SimulatorFrameOptions {
  /** Highest zoom rendered (default 7); zooms 0..maxZoom are all present. */
  readonly maxZoom?: number;
  /** Weather seed (default: the field's). */
  readonly seed?: number;
  /** Spacing of the field's own grid in degrees (default 0.05). */
  readonly stepDeg?: number;
  /** zlib level of tile PNGs (default 6). */
  readonly pngLevel?: number;
}

/** Renders simulated frames; keeps the seeded field, so make one per thread. */
export interface SimulatorFrameRenderer {
  readonly seed: number;
  /**
   * The archive of `timestamp` (12-digit UTC): the simulated CONUS weather at that instant.
   * Throws `RangeError` for an invalid timestamp. Deterministic: same options and timestamp,
   * same bytes.
   */
  render(timestamp: string): Buffer;
  /** The grid `render` draws, and how (the nowcast worker reads base frames from it). */
  load(timestamp: string): LoadedFrame;
}

/** Name of the producer, recorded in every simulated archive's metadata. */
export const GENERATOR = 'radar-tiles simulator 1';

/** Header centre of simulated archives: the middle of CONUS. */
const CENTER = { lon: -96, lat: 38, zoom: 4 };

/** Creates a frame renderer for `options` (RangeError for a zoom outside the simulator's limits). */
export function createSimulatorFrameRenderer(
  options: SimulatorFrameOptions = {},
): SimulatorFrameRenderer {
  const maxZoom = checkSimSetting('maxZoom', options.maxZoom ?? SIM_LIMITS.maxZoom.default);
  const grids = createSimulatedGrids({ seed: options.seed, stepDeg: options.stepDeg, maxZoom });
  const load = (timestamp: string): LoadedFrame => {
    const epochMs = parseTimestamp(timestamp);
    if (epochMs === undefined)
      throw new RangeError(`invalid timestamp ${JSON.stringify(timestamp)}`);
    return {
      grid: grids.grid(epochMs),
      render: {
        maxZoom,
        pngLevel: options.pngLevel,
        center: [CENTER.lon, CENTER.lat, Math.min(CENTER.zoom, maxZoom)],
        metadata: {
          name: `Simulated radar ${timestamp}`,
          description:
            'Synthetic base reflectivity over the contiguous United States (simulated, not real weather).',
          attribution: 'Simulated radar data (radar-tiles simulator)',
          generator: GENERATOR,
          seed: grids.seed,
        },
      },
    };
  };
  return {
    seed: grids.seed,
    load,
    render(timestamp) {
      const { grid, render } = load(timestamp);
      return renderFrame(grid, render);
    },
  };
}

/** This module as a job module: the render pool's job, and the nowcast's frame loader. */
export const SIMULATOR_FRAME_MODULE = jobModulePath(__filename);

/** Options of {@link createSimulatorPool}: what every worker renders, and how many workers. */
export interface SimulatorPoolOptions extends SimulatorFrameOptions {
  /** Worker threads (default: one less than the cores, at least 1). */
  readonly size?: number;
}

/**
 * A render pool whose workers each hold a simulator frame renderer: `render(timestamp)` makes
 * that frame off the caller's thread. Options are checked here, so a bad zoom fails at once.
 */
export function createSimulatorPool(options: SimulatorPoolOptions = {}): RenderPool<string> {
  const { size, ...frame } = options;
  createSimulatorFrameRenderer(frame); // validates the options in the caller's thread
  return createRenderPool<string>({
    size,
    job: { module: SIMULATOR_FRAME_MODULE, options: frame },
  });
}

/** Worker side of {@link createSimulatorPool}: inputs are timestamps. */
export function createWorkerJob(options: unknown): WorkerJob {
  const renderer = createSimulatorFrameRenderer(options as SimulatorFrameOptions);
  return (input) => renderer.render(input as string);
}

/** Nowcast side of the same module: inputs are timestamps, the grid comes back. */
export function createFrameLoader(options: unknown): FrameLoader {
  const renderer = createSimulatorFrameRenderer(options as SimulatorFrameOptions);
  return (input) => renderer.load(input as string);
}
