/**
 * The nowcast publisher's metrics, declared where they are fed: cycle time, bases by outcome
 * and bases not published by reason. Every series starts at 0 for `rate()` and the alerts.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import {
  NOWCAST_FAILURE_REASONS,
  NOWCAST_OUTCOMES,
  type NowcastEvents,
} from '../forecast/nowcast-publisher';
import { zeroed } from './registry';

/** Registers the nowcast's series on `registry`; returns the events that feed them. */
export function createNowcastMetrics(registry: Registry): NowcastEvents {
  const seconds = new Histogram({
    name: 'radar_nowcast_cycle_seconds',
    help: 'One nowcast cycle in its worker: motion, extrapolation and rendering of every lead (wall time), for cycles that ran.',
    buckets: [1, 2, 4, 8, 15, 30, 60, 120],
    registers: [registry],
  });
  const cycles = new Counter({
    name: 'radar_nowcast_cycles_total',
    help: 'Observed frames (bases) by what became of their nowcast: published (every lead written), skipped (see failures), superseded (a newer frame came first or during the cycle), failed.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of NOWCAST_OUTCOMES) cycles.inc({ outcome }, 0);
  const failures = zeroed(
    new Counter({
      name: 'radar_nowcast_failures_total',
      help: 'Bases whose forecasts were not published, by reason: missing-earlier-frame (no frame 10 min before the base: a gap), grid-mismatch (that frame is of another grid or product), superseded, error (the cycle failed), worker-died (its worker ran out of heap or exited: the producer goes on, the next frame starts a new worker), sink (writing the forecasts failed).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    NOWCAST_FAILURE_REASONS,
  );
  return {
    onCycle: (outcome, s) => {
      cycles.inc({ outcome });
      if (s !== undefined && outcome !== 'superseded') seconds.observe(s);
    },
    onFailure: (reason) => failures.inc({ reason }),
  };
}
