/** The shape of a bench run's results (`test/bench/results/*.json`) and the target checks. */
import type { LoadResult } from './load-job';
import type { MachineInfo } from './machine';
import type { ProcFigures } from './proc-stats';
import type { PublishVisibleResult } from './publish-visible';

export type RunKind = 'service' | 'baseline';

/** One measured load run. */
export interface RunRecord {
  /** Unique id: `<scenario> · <against>`. */
  readonly id: string;
  readonly scenario: string;
  /** What served the requests. */
  readonly against: string;
  readonly kind: RunKind;
  readonly connections: number;
  readonly result: LoadResult;
  /** Every watched process during the measured window. */
  readonly processes: Record<string, ProcFigures>;
  /** Cores busy with anything the bench did not start, during the measured window. */
  readonly otherCores: number;
  /** Processes shown in the table for this run (the ones serving it, and the generator). */
  readonly shown: readonly string[];
}

export interface TargetResult {
  readonly name: string;
  readonly requirement: string;
  readonly measured: string;
  /** The number compared with `limit` (a ratio, or a difference in ms). */
  readonly value: number;
  readonly limit: number;
  /** true met, false missed, null not measurable here. */
  readonly met: boolean | null;
  readonly note?: string;
}

export interface BenchResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly command: string;
  readonly profile: 'full' | 'quick';
  readonly machine: MachineInfo;
  readonly settings: Record<string, string | number | boolean>;
  readonly runs: RunRecord[];
  readonly publishVisible?: PublishVisibleResult;
  readonly targets: TargetResult[];
  readonly notes: string[];
}

/**
 * CPU time of the processes serving a run (the generator excluded) per response, in µs: a
 * cost that, unlike req/s, does not depend on how much of the machine the run was given.
 */
export function serverCpuPerRequestUs(run: RunRecord): number {
  const cores = run.shown
    .filter((name) => name !== 'generator')
    .reduce((sum, name) => sum + (run.processes[name]?.cpuCores ?? 0), 0);
  return (cores / run.result.rps) * 1e6;
}

/** `baseline µs / service µs` of server CPU per request, as text for the measured column. */
function costText(service: RunRecord, baseline: RunRecord): string {
  const s = serverCpuPerRequestUs(service);
  const b = serverCpuPerRequestUs(baseline);
  return `; server CPU ${s.toFixed(0)} vs ${b.toFixed(0)} µs/req (cost ratio ${(b / s).toFixed(2)})`;
}

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

function find(
  runs: readonly RunRecord[],
  scenario: string,
  against: string,
): RunRecord | undefined {
  return runs.find((r) => r.scenario === scenario && r.against === against);
}

/** Throughput ratio `service / baseline` against a minimum. */
function rpsRatio(
  runs: readonly RunRecord[],
  name: string,
  requirement: string,
  service: [string, string],
  baseline: [string, string],
  min: number,
): TargetResult | undefined {
  const s = find(runs, ...service);
  const b = find(runs, ...baseline);
  if (!s || !b) return undefined;
  const value = s.result.rps / b.result.rps;
  return {
    name,
    requirement,
    measured: `${s.result.rps} vs ${b.result.rps} req/s${costText(s, b)}`,
    value,
    limit: min,
    met: value >= min,
  };
}

/** Every target of issue 5 item 5 that this run measured. */
export function evaluateTargets(
  runs: readonly RunRecord[],
  publish: PublishVisibleResult | undefined,
  cacheMb: number,
): TargetResult[] {
  const out: Array<TargetResult | undefined> = [];
  for (const status of ['200', '304']) {
    out.push(
      rpsRatio(
        runs,
        `status ${status} direct`,
        '>= 0.5 x node:http baseline req/s',
        [`status-${status}`, 'replica (direct)'],
        [`status-${status}`, 'node:http (memory)'],
        0.5,
      ),
    );
  }
  out.push(
    rpsRatio(
      runs,
      'hot-range direct',
      '>= 0.5 x node:http baseline req/s',
      ['hot-range', 'replica (direct)'],
      ['hot-range', 'node:http (memory)'],
      0.5,
    ),
  );
  out.push(
    rpsRatio(
      runs,
      'map-client through nginx, 2 replicas',
      '>= 0.25 x nginx serving the same files',
      ['map-client', 'nginx + 2 replicas'],
      ['map-client', 'nginx static'],
      0.25,
    ),
  );
  const coldNames: Record<string, string> = {
    'replica, RADAR_CACHE_MB=0': 'cold-range direct, cache off',
    'replica, cache on, block misses': 'cold-range direct, cache on, block miss',
    'nginx + 2 replicas, RADAR_CACHE_MB=0': 'cold-range through nginx, cache off',
  };
  for (const against of Object.keys(coldNames)) {
    const cold = find(runs, 'cold-range', against);
    const s3 = find(runs, 'cold-range', 'S3 endpoint (direct)');
    if (cold && s3) {
      const diff = cold.result.latencyMs.p50 - s3.result.latencyMs.p50;
      out.push({
        name: coldNames[against]!,
        requirement: 'p50 <= direct S3 range GET p50 + 1 ms',
        measured: `p50 ${fmt(cold.result.latencyMs.p50)} vs ${fmt(s3.result.latencyMs.p50)} ms (+${fmt(diff)} ms, ${fmt(cold.result.latencyMs.p50 / s3.result.latencyMs.p50)}x), ${cold.result.responses} samples`,
        value: diff,
        limit: 1,
        met: diff <= 1,
        note: against.startsWith('nginx') ? 'includes the proxy hop' : undefined,
      });
    }
  }
  const fullNames: Record<string, string> = {
    'replica (direct)': 'full-archive direct (cache on)',
    'replica, RADAR_CACHE_MB=0': 'full-archive direct, cache off (streaming)',
    'nginx + 2 replicas': 'full-archive through nginx (cache on)',
  };
  for (const against of Object.keys(fullNames)) {
    const t = rpsRatio(
      runs,
      fullNames[against]!,
      '>= 0.8 x node:http streaming the same object from the same store',
      ['full-archive', against],
      ['full-archive', 'node:http streaming from S3'],
      0.8,
    );
    out.push(t);
  }
  for (const variant of ['status-200', 'status-304', 'map-client']) {
    const small = find(runs, `scale ${variant}`, 'replica, 30 timestamps');
    const large = find(runs, `scale ${variant}`, 'replica, 10,000 timestamps');
    if (!small || !large) continue;
    // Cost per request at saturation is 1 / throughput.
    const value = small.result.rps / large.result.rps;
    out.push({
      name: `scale ${variant}`,
      requirement: '10,000 timestamps cost <= 1.10 x 30 timestamps per request',
      measured: `${large.result.rps} (10,000) vs ${small.result.rps} (30) req/s; server CPU ${serverCpuPerRequestUs(large).toFixed(0)} vs ${serverCpuPerRequestUs(small).toFixed(0)} µs/req`,
      value,
      limit: 1.1,
      met: value <= 1.1,
      note:
        variant === 'map-client'
          ? 'the target names status requests; map-client shown for completeness'
          : undefined,
    });
  }
  // Every replica serving a map-client run (direct, through nginx, log-info, scale).
  for (const run of runs.filter((r) => r.scenario.endsWith('map-client') && r.kind === 'service')) {
    for (const [name, figures] of Object.entries(run.processes)) {
      if (!name.startsWith('api-') || !run.shown.includes(name)) continue;
      out.push({
        name: `RSS ${name} after ${run.id}`,
        requirement: `<= RADAR_CACHE_MB + 150 = ${cacheMb + 150} MiB`,
        measured: `${fmt(figures.rssMiB, 1)} MiB (peak during the run ${fmt(figures.peakRssMiB, 1)})`,
        value: figures.rssMiB,
        limit: cacheMb + 150,
        met: figures.rssMiB <= cacheMb + 150,
      });
    }
  }
  if (publish) {
    const limitMs = (publish.pollIntervalS + 1) * 1000;
    out.push({
      name: 'publish-to-visible, polling',
      requirement: `p99 <= polling interval + 1 s = ${limitMs} ms`,
      measured: `p99 ${publish.p99Ms} ms, p50 ${publish.p50Ms} ms, max ${publish.maxMs} ms over ${publish.samples} samples (${publish.uploads} uploads x ${publish.replicas} replicas, ${publish.missed} missed)`,
      value: publish.p99Ms,
      limit: limitMs,
      met: publish.missed === 0 && publish.p99Ms <= limitMs,
    });
    out.push({
      name: 'publish-to-visible, notifications',
      requirement: 'p99 <= 1 s',
      measured:
        'not measured: s3rver has no bucket notifications (MinIO is not available on this machine)',
      value: NaN,
      limit: 1000,
      met: null,
    });
  }
  return out.filter((t): t is TargetResult => t !== undefined);
}
