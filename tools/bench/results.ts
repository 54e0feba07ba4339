/** The shape of a bench run's results (`tools/bench/results/*.json`) and the target checks. */
import type { LoadResult } from './load-job';
import type { MachineInfo } from './machine';
import type { ProcFigures } from './proc-stats';
import type { PublishVisibleResult } from './publish-visible';
import type { ProfileBreakdown } from './cpu-profile';
import type { LeaseAccuracy } from './lease-accuracy';
import type { IdleCpu } from './scenarios';
import { mrmsTargets, type MrmsBenchResult } from './mrms';
import { typedSchemeTargets } from './typed-scheme-targets';

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
  /** Wall-clock bounds of the measured window (epoch ms). */
  readonly windowMs?: { readonly from: number; readonly to: number };
  /** Load generator: autocannon (default) or wrk (re-measured where autocannon was the limit). */
  readonly generator?: 'autocannon' | 'wrk';
  /** Redis commands processed per allowed (non-429) response during the window. */
  readonly redisCommandsPerAllowed?: number;
  /** Redis commands processed per response during the window (the usage rows). */
  readonly redisCommandsPerRequest?: number;
  /** Usage flushes the serving replicas made during the window. */
  readonly usageFlushes?: number;
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
  /** Lease accuracy figures (allowed vs limit, 2 and 3 replicas). */
  readonly leaseAccuracy?: LeaseAccuracy[];
  /** Per-part CPU breakdown of a profiled replica, this run. */
  readonly profiles?: ProfileBreakdown[];
  /** The same breakdown measured before the lean request pipeline (stored file). */
  readonly profilesBefore?: {
    readonly measuredAt: string;
    readonly code: string;
    readonly profiles: ProfileBreakdown[];
  };
  readonly idleCpu?: IdleCpu;
  /** The `mrms` scenario (conversion against GDAL, publish-to-visible), possibly merged in later. */
  readonly mrms?: MrmsBenchResult;
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
  generator: 'autocannon' | 'wrk' = 'autocannon',
): RunRecord | undefined {
  return runs.find(
    (r) =>
      r.scenario === scenario &&
      r.against === against &&
      (r.generator ?? 'autocannon') === generator,
  );
}

/**
 * Throughput ratio `service / baseline` against a minimum, and (when `minCost` is given) the
 * CPU cost ratio `baseline µs / service µs` per request as a second target. With
 * `generator: 'wrk'` the runs re-measured by wrk are compared instead.
 */
function rpsRatio(
  runs: readonly RunRecord[],
  name: string,
  requirement: string,
  service: [string, string],
  baseline: [string, string],
  min: number,
  minCost?: number,
  generator: 'autocannon' | 'wrk' = 'autocannon',
): TargetResult[] {
  const s = find(runs, ...service, generator);
  const b = find(runs, ...baseline, generator);
  if (!s || !b) return [];
  const suffix = generator === 'wrk' ? ' [wrk]' : '';
  const value = s.result.rps / b.result.rps;
  const out: TargetResult[] = [
    {
      name: `${name}${suffix}`,
      requirement,
      measured: `${s.result.rps} vs ${b.result.rps} req/s${costText(s, b)}`,
      value,
      limit: min,
      met: value >= min,
    },
  ];
  if (minCost !== undefined) {
    const cost = serverCpuPerRequestUs(b) / serverCpuPerRequestUs(s);
    out.push({
      name: `${name}, CPU cost${suffix}`,
      requirement: `baseline server CPU per request / service's >= ${minCost}`,
      measured: `${serverCpuPerRequestUs(s).toFixed(0)} vs ${serverCpuPerRequestUs(b).toFixed(0)} µs/req`,
      value: cost,
      limit: minCost,
      met: cost >= minCost,
    });
  }
  return out;
}

/**
 * The scenarios held to the same target against node:http answering from memory (scenario,
 * target name): the replica's own overhead on a status or a cached range, nothing else.
 */
const NODE_BASELINE_TARGETS = [
  ['status-200', 'status 200 direct'],
  ['status-304', 'status 304 direct'],
  ['hot-range', 'hot-range direct'],
] as const;

/** Extra measurements the targets read besides the runs. */
export interface TargetInputs {
  readonly idleCpu?: IdleCpu;
  readonly mrms?: MrmsBenchResult;
}

/** Every benchmark target (BENCHMARKS.md, "Targets") that this run measured. */
export function evaluateTargets(
  runs: readonly RunRecord[],
  publish: PublishVisibleResult | undefined,
  cacheMb: number,
  inputs: TargetInputs = {},
): TargetResult[] {
  const out: Array<TargetResult | undefined> = [];
  for (const generator of ['autocannon', 'wrk'] as const) {
    for (const [scenario, name] of NODE_BASELINE_TARGETS) {
      out.push(
        ...rpsRatio(
          runs,
          name,
          '>= 0.5 x node:http baseline req/s',
          [scenario, 'replica (direct)'],
          [scenario, 'node:http (memory)'],
          0.5,
          0.4,
          generator,
        ),
      );
    }
    out.push(
      ...rpsRatio(
        runs,
        'scheme tile direct',
        '>= 0.9 x the same hot tiles plain, measured just before (req/s and server CPU per request)',
        ['scheme-tile', 'replica (direct)'],
        ['scheme-tile', 'replica (direct), the same tiles plain'],
        0.9,
        0.9,
        generator,
      ),
    );
    out.push(...typedSchemeTargets(runs, serverCpuPerRequestUs, generator));
    out.push(
      ...rpsRatio(
        runs,
        'map-client through nginx, 2 replicas',
        '>= 0.35 x nginx serving the same files',
        ['map-client', 'nginx + 2 replicas'],
        ['map-client', 'nginx static'],
        0.35,
        0.2,
        generator,
      ),
    );
  }
  const coldNames: Record<string, [string, number]> = {
    'replica, RADAR_CACHE_MB=0': ['cold-range direct, cache off', 0.5],
    'replica, cache on, block misses': ['cold-range direct, cache on, block miss', 1],
    'nginx + 2 replicas, RADAR_CACHE_MB=0': ['cold-range through nginx, cache off', 1],
  };
  for (const against of Object.keys(coldNames)) {
    const cold = find(runs, 'cold-range', against);
    const s3 = find(runs, 'cold-range', 'S3 endpoint (direct)');
    const [name, limit] = coldNames[against]!;
    if (cold && s3) {
      const diff = cold.result.latencyMs.p50 - s3.result.latencyMs.p50;
      out.push({
        name,
        requirement: `p50 <= direct S3 range GET p50 + ${limit} ms`,
        measured: `p50 ${fmt(cold.result.latencyMs.p50)} vs ${fmt(s3.result.latencyMs.p50)} ms (+${fmt(diff)} ms, ${fmt(cold.result.latencyMs.p50 / s3.result.latencyMs.p50)}x), ${cold.result.responses} samples; server CPU ${serverCpuPerRequestUs(cold).toFixed(0)} µs/req`,
        value: diff,
        limit,
        met: diff <= limit,
        note: against.startsWith('nginx') ? 'includes the proxy hop' : undefined,
      });
    }
  }
  const fullNames: Record<string, [string, number]> = {
    'replica, RADAR_CACHE_MB=0': ['full-archive direct, cache off (streaming)', 0.9],
    'replica (direct)': ['full-archive direct (cache on)', 0.8],
    'nginx + 2 replicas': ['full-archive through nginx (cache on)', 0.8],
  };
  for (const against of Object.keys(fullNames)) {
    const [name, min] = fullNames[against]!;
    out.push(
      ...rpsRatio(
        runs,
        name,
        `>= ${min} x node:http streaming the same object from the same store`,
        ['full-archive', against],
        ['full-archive', 'node:http streaming from S3'],
        min,
      ),
    );
  }
  const scaleVariants: Array<[string, number, string]> = [
    ['status-304', 1.1, '10,000 timestamps cost <= 1.10 x 30 timestamps per request'],
    ['map-client', 1.1, '10,000 timestamps cost <= 1.10 x 30 timestamps per request'],
    ['status-200 gzip', 1.5, 'with Accept-Encoding: gzip, 10,000 timestamps cost <= 1.5 x 30'],
  ];
  for (const [variant, limit, requirement] of scaleVariants) {
    const small = find(runs, `scale ${variant}`, 'replica, 30 timestamps');
    const large = find(runs, `scale ${variant}`, 'replica, 10,000 timestamps');
    if (!small || !large) continue;
    // Cost per request at saturation is 1 / throughput.
    const value = small.result.rps / large.result.rps;
    out.push({
      name: `scale ${variant}`,
      requirement,
      measured: `${large.result.rps} (10,000) vs ${small.result.rps} (30) req/s; server CPU ${serverCpuPerRequestUs(large).toFixed(0)} vs ${serverCpuPerRequestUs(small).toFixed(0)} µs/req`,
      value,
      limit,
      met: value <= limit,
    });
  }
  for (const run of runs.filter((r) => r.redisCommandsPerAllowed !== undefined)) {
    const value = run.redisCommandsPerAllowed!;
    const allowed = run.result.responses - (run.result.statusCounts['429'] ?? 0);
    if (allowed === 0) {
      out.push({
        name: `Redis commands per allowed request, map-client, ${run.against}`,
        requirement: '<= 0.05 (INFO stats total_commands_processed over the window)',
        measured: `no allowed response in the measured window; ${run.result.statusCounts['429'] ?? 0} refused at no lease cost. See the lease accuracy table for the default limit.`,
        value: Number.NaN,
        limit: 0.05,
        met: null,
      });
      continue;
    }
    out.push({
      name: `Redis commands per allowed request, map-client, ${run.against}`,
      requirement: '<= 0.05 (INFO stats total_commands_processed over the window)',
      measured: `${value.toFixed(4)} per allowed; ${run.result.responses - (run.result.statusCounts['429'] ?? 0)} allowed, ${run.result.statusCounts['429'] ?? 0} refused`,
      value,
      limit: 0.05,
      met: value <= 0.05,
    });
  }
  for (const run of runs.filter(
    (r) => r.scenario === 'usage' && r.redisCommandsPerRequest !== undefined,
  )) {
    const value = run.redisCommandsPerRequest!;
    out.push({
      name: `Redis commands per request, hot-range, ${run.against}`,
      requirement:
        '<= 0.01 with usage on (INFO stats total_commands_processed over the window: limiter and usage flushes)',
      measured: `${value.toFixed(5)} per request; ${run.result.responses} responses, ${run.usageFlushes ?? 0} usage flushes`,
      value,
      limit: 0.01,
      met: value <= 0.01,
    });
  }
  if (inputs.idleCpu) {
    const idle = inputs.idleCpu;
    out.push({
      name: `idle CPU of a replica with ${idle.timestamps} timestamps`,
      requirement: '<= 0.005 cores',
      measured: `${idle.cores} cores over ${idle.seconds} s without requests`,
      value: idle.cores,
      limit: 0.005,
      met: idle.cores <= 0.005,
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
  if (inputs.mrms) out.push(...mrmsTargets(inputs.mrms));
  return out.filter((t): t is TargetResult => t !== undefined);
}
