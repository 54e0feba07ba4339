/**
 * The producers' nowcast: a publisher of forecast frames beside a producer's observed frames,
 * when `NOWCAST` is on, with its metrics on the producer's registry when it has one.
 */
import type { Registry } from 'prom-client';
import type { NowcastSettings } from '../config';
import type { FrameSink } from '../domain/producer-ports';
import { createNowcastPublisher, type NowcastPublisher } from '../forecast/nowcast-publisher';
import type { Logger } from '../logger';
import { createNowcastMetrics } from '../observability/nowcast-metrics';
import type { WorkerJobSpec } from '../render/worker-job';

/**
 * Heap limits of the nowcast worker: its grids are typed arrays outside the heap, so a cycle
 * keeps little JavaScript heap; a runaway ends the worker alone (counted, and a new one starts
 * with the next frame), never the producer.
 */
const NOWCAST_WORKER_LIMITS = Object.freeze({ maxOldGenerationSizeMb: 256 });

/**
 * The publisher of `loader`'s frames into `sink`, or `undefined` when the nowcast is off. Its
 * lines carry `part: 'nowcast'`, not a `component`: the nowcast is part of a producer whose
 * logger may already name the replica's component (`simulator`, `mrms`), and a second
 * `component` would write that key twice in one JSON line.
 */
export function nowcastPublisher(
  sink: FrameSink,
  settings: NowcastSettings | undefined,
  loader: WorkerJobSpec,
  logger: Logger,
  registry?: Registry,
): NowcastPublisher | undefined {
  if (settings === undefined || !settings.enabled) return undefined;
  return createNowcastPublisher({
    sink,
    logger: logger.child({ part: 'nowcast' }),
    leads: settings.leads,
    loader,
    events: registry ? createNowcastMetrics(registry) : undefined,
    resourceLimits: NOWCAST_WORKER_LIMITS,
  });
}
