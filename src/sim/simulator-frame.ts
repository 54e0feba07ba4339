/**
 * A simulated radar frame: timestamp in, archive out, made of the simulator's grid at that
 * instant and the one renderer. This is the unit of work the simulator's render pool runs off
 * the main thread (its job module is this file).
 */
import { parseTimestamp } from '../domain/timestamps';
import { createRenderPool, type RenderPool } from '../render/render-pool';
import { renderFrame } from '../render/render-frame';
import { jobModulePath, type WorkerJob } from '../render/worker-job';
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
  return {
    seed: grids.seed,
    render(timestamp) {
      const epochMs = parseTimestamp(timestamp);
      if (epochMs === undefined)
        throw new RangeError(`invalid timestamp ${JSON.stringify(timestamp)}`);
      return renderFrame(grids.grid(epochMs), {
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
      });
    },
  };
}

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
    job: { module: jobModulePath(__filename), options: frame },
  });
}

/** Worker side of {@link createSimulatorPool}: inputs are timestamps. */
export function createWorkerJob(options: unknown): WorkerJob {
  const renderer = createSimulatorFrameRenderer(options as SimulatorFrameOptions);
  return (input) => renderer.render(input as string);
}
