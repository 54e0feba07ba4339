/**
 * The radar simulator as a component: a render pool in worker threads and the simulator loop
 * publishing into a frame sink. Embedded replicas run it in-process; `npm run simulate` runs
 * it alone with its own knobs.
 */
import type { Logger } from '../logger';
import type { FrameSink } from '../domain/producer-ports';
import { createSimulator, type SimulatorOptions } from '../sim/simulator';
import { createSimulatorPool } from '../sim/simulator-frame';
import type { Component } from './component';

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
): Component {
  const { maxZoom, workers, seed, ...options } = settings;
  const pool = createSimulatorPool({ maxZoom, size: workers, seed });
  const simulator = createSimulator({ ...options, sink, pool, logger });
  let stopping: Promise<void> | undefined;
  return {
    name: 'simulator',
    start: () => simulator.start(),
    stop: () =>
      (stopping ??= (async () => {
        await simulator.stop();
        await pool.close();
      })()),
  };
}

/** The in-process simulator of an embedded replica: starts in the background. */
export function backgroundSimulator(
  sink: FrameSink,
  settings: SimulatorSettings,
  logger: Logger,
): Component {
  const simulator = buildSimulator(sink, settings, logger.child({ component: 'simulator' }));
  return {
    name: 'simulator',
    start: async () => {
      void simulator.start();
    },
    stop: () => simulator.stop(),
  };
}
