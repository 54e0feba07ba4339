/**
 * The radar simulator as a component: a render pool in worker threads and the simulator loop
 * publishing into a frame sink. Embedded replicas run it in-process; `npm run simulate` runs
 * it alone with its own knobs.
 */
import type { Registry } from 'prom-client';
import type { Logger } from '../logger';
import type { FrameSink } from '../domain/producer-ports';
import { createSimulator, type SimulatorOptions } from '../sim/simulator';
import { createSimulatorPool, SIMULATOR_FRAME_MODULE } from '../sim/simulator-frame';
import type { NowcastSettings } from '../config';
import type { Component } from './component';
import { nowcastPublisher } from './nowcast';

export interface SimulatorSettings extends Omit<SimulatorOptions, 'sink' | 'pool' | 'logger'> {
  readonly maxZoom: number;
  /** Render threads (default: the pool's own choice). */
  readonly workers?: number;
  readonly seed?: number;
}

/**
 * A simulator component; `start` resolves once the start-up frames are published, `stop` is
 * idempotent (after the frame in flight).
 */
export function buildSimulator(
  sink: FrameSink,
  settings: SimulatorSettings,
  logger: Logger,
  nowcast?: { readonly settings: NowcastSettings; readonly registry?: Registry },
): SimulatorComponent {
  const { maxZoom, workers, seed, ...options } = settings;
  const pool = createSimulatorPool({ maxZoom, size: workers, seed });
  const loader = { module: SIMULATOR_FRAME_MODULE, options: { maxZoom, seed } };
  const forecasts = nowcastPublisher(sink, nowcast?.settings, loader, logger, nowcast?.registry);
  const onFrame = forecasts && ((timestamp: string) => forecasts.observe(timestamp, timestamp));
  const simulator = createSimulator({ ...options, sink, pool, logger, onFrame });
  let stopping: Promise<void> | undefined;
  return {
    name: 'simulator',
    start: () => simulator.start(),
    forecastsIdle: () => forecasts?.idle() ?? Promise.resolve(),
    stop: () =>
      (stopping ??= (async () => {
        await simulator.stop();
        await forecasts?.close();
        await pool.close();
      })()),
  };
}

/** The simulator component, and a way to wait for the forecasts of the frames so far. */
export interface SimulatorComponent extends Component {
  /** Resolves once the nowcast has handled every frame published so far (at once without one). */
  forecastsIdle(): Promise<void>;
}

/** The in-process simulator of an embedded replica: starts in the background. */
export function backgroundSimulator(
  sink: FrameSink,
  settings: SimulatorSettings,
  logger: Logger,
  nowcast?: { readonly settings: NowcastSettings; readonly registry?: Registry },
): Component {
  const simulator = buildSimulator(
    sink,
    settings,
    logger.child({ component: 'simulator' }),
    nowcast,
  );
  return {
    name: 'simulator',
    start: async () => {
      void simulator.start();
    },
    stop: () => simulator.stop(),
  };
}
