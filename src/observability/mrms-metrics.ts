/**
 * The MRMS follower's metrics, declared where they are fed: registered on the process's
 * registry and returned as the follower's event handlers, plus the gauges read at scrape
 * time (source lag, leadership). Failure series start at 0 for `rate()` and the alerts.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import {
  MRMS_FAILURE_REASONS,
  type MrmsFollower,
  type MrmsFollowerEvents,
} from '../sources/mrms/mrms-follower';
import { UNTYPED_REASONS } from '../sources/mrms/flag-pairing';
import { liveGauge, zeroed } from './registry';

/** Registers the follower's counters on `registry`; returns the events that feed them. */
export function createMrmsMetrics(registry: Registry): MrmsFollowerEvents {
  const converted = new Counter({
    name: 'radar_mrms_frames_converted_total',
    help: 'MRMS files converted and published as archives.',
    registers: [registry],
  });
  const skipped = new Counter({
    name: 'radar_mrms_frames_skipped_total',
    help: 'MRMS files whose frame was already published (an earlier run or another producer), skipped before download.',
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'radar_mrms_conversion_seconds',
    help: 'Decoding and rendering one MRMS file (wall time in the render pool).',
    buckets: [0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
    registers: [registry],
  });
  const failures = zeroed(
    new Counter({
      name: 'radar_mrms_failures_total',
      help: 'MRMS follower failures by reason: source (listing or download, retried), bad-file (not valid GRIB2, skipped), not-reflectivity (skipped), conversion, sink (upload, retried), future-name (named past the clock, skipped).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    MRMS_FAILURE_REASONS,
  );
  const untyped = zeroed(
    new Counter({
      name: 'radar_mrms_untyped_frames_total',
      help: 'MRMS frames published without precipitation type, by reason: no-flag (no PrecipFlag file of the cycle within MRMS_TYPE_WAIT_S), bad-flag (the flag could not type the frame: unreadable, not PrecipFlag, another grid or cycle).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    UNTYPED_REASONS,
  );
  return {
    onUntyped: (reason) => untyped.inc({ reason }),
    onConverted: (frame) => {
      converted.inc();
      seconds.observe(frame.seconds);
    },
    onSkipped: () => skipped.inc(),
    onFailure: (reason) => failures.inc({ reason }),
  };
}

/**
 * The gauges of a running follower: source lag (now minus the valid time of the newest frame
 * published or found published; +Inf before the first) and leadership.
 */
export function mrmsGauges(
  registry: Registry,
  follower: Pick<MrmsFollower, 'isLeader' | 'newestValidTimeMs'>,
  now: () => number = Date.now,
): void {
  liveGauge(
    registry,
    'radar_mrms_source_lag_seconds',
    'Seconds from the valid time of the newest MRMS frame this producer published (or found published) to now; +Inf before the first.',
    () => {
      const newest = follower.newestValidTimeMs();
      return newest === undefined ? Number.POSITIVE_INFINITY : (now() - newest) / 1000;
    },
  );
  liveGauge(
    registry,
    'radar_mrms_leader',
    '1 while this MRMS producer holds its leader lease (or runs alone).',
    () => follower.isLeader(),
  );
}
