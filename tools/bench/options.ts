/** Command line of `npm run bench`: profiles (full / `--quick`) and overrides. */
import { parseArgs } from 'node:util';

export const USAGE = `usage: npm run bench -- [--quick] [--only a,b] [--merge] [--duration S] [--warmup S] [--cache-mb N] [--nginx-workers N|auto] [--keep]
  --quick          smoke run (< 2 min): 2 s per run, fewer variants; writes tools/bench/results/quick.*
  --only LIST      scenarios to run: status,hot-range,tile,scheme-tile,typed-scheme-tile,map-client,cold-range,full-archive,scale,log-info,publish,lease,profile,usage,mrms
  --merge          with --only mrms or --only typed-scheme-tile: put that scenario's figures into
                   tools/bench/results/latest.json and rewrite BENCHMARKS.md with every other
                   section kept as measured before
  --profile-before store the profile scenario's breakdown as the "before" of the profile tables
                   (tools/bench/results/profile-before.json)
  --duration S     measured seconds per run (full: 10, quick: 2)
  --warmup S       warm-up seconds before each run (full: 3, quick: 1)
  --cache-mb N     RADAR_CACHE_MB of every replica (default 64; the cold-range replicas use 0)
  --nginx-workers  worker_processes of both nginx instances (default auto, as shipped)
  --quiet-budget S seconds the whole run may wait for other load on the machine to settle
                   before measured windows (full: 180, quick: 10)
  --keep           keep the run directory (logs, configs) after a successful run
  --report-only    measure nothing: rewrite BENCHMARKS.md and the chart from
                   tools/bench/results/latest.json (after editing tools/bench/FINDINGS.md)`;

export const SCENARIOS = [
  'status',
  'hot-range',
  'tile',
  'scheme-tile',
  'typed-scheme-tile',
  'map-client',
  'cold-range',
  'full-archive',
  'scale',
  'log-info',
  'publish',
  'lease',
  'profile',
  'usage',
  'mrms',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface BenchOptions {
  readonly quick: boolean;
  readonly only: ReadonlySet<ScenarioName>;
  readonly durationS: number;
  readonly warmupS: number;
  readonly cacheMb: number;
  readonly nginxWorkers: number | 'auto';
  readonly keep: boolean;
  readonly quietBudgetS: number;
  readonly reportOnly: boolean;
  /** Store the profile breakdown as the "before" of the profile tables. */
  readonly profileBefore: boolean;
  /** Retained archives (the "30" of the scale scenario). */
  readonly archives: number;
  /** Timestamps of the large catalog. */
  readonly scaleTimestamps: number;
  /** Virtual map clients (connections) and distinct views. */
  readonly mapClients: number;
  /** Frames per map-client animation loop. */
  readonly loopFrames: number;
  /** Connections of the small-response scenarios (status, hot-range). */
  readonly connections: number;
  /** Connections of whole-archive reads. */
  readonly archiveConnections: number;
  /** Archives uploaded one by one for publish-to-visible. */
  readonly publishSamples: number;
  /** Variants left out of the quick profile. */
  readonly extras: boolean;
  /** Merge the measured mrms section into latest.json instead of writing a partial result. */
  readonly merge: boolean;
  /** mrms: conversions of the sample each way (ours, GDAL). */
  readonly mrmsRuns: number;
  /** mrms: files uploaded one by one for publish-to-visible. */
  readonly mrmsUploads: number;
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      'cache-mb': { type: 'string', default: '64' },
      'nginx-workers': { type: 'string', default: 'auto' },
      keep: { type: 'boolean', default: false },
      'quiet-budget': { type: 'string' },
      'report-only': { type: 'boolean', default: false },
      'profile-before': { type: 'boolean', default: false },
      merge: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const quick = values.quick;
  const only = new Set<ScenarioName>();
  for (const name of (values.only ?? SCENARIOS.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (!(SCENARIOS as readonly string[]).includes(name))
      throw new Error(`unknown scenario "${name}"\n${USAGE}`);
    only.add(name as ScenarioName);
  }
  if (quick && values.only === undefined) only.delete('log-info');
  const number = (value: string | undefined, fallback: number, name: string) => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0)
      throw new Error(`--${name} must be a non-negative number\n${USAGE}`);
    return n;
  };
  // Scenarios measured against baselines of their own, so their figures can replace the ones
  // of an earlier full run; the others share one measured topology.
  const mergeable = ['mrms', 'typed-scheme-tile'];
  if (values.merge && !(only.size === 1 && mergeable.includes([...only][0]!)))
    throw new Error(
      `--merge is for --only mrms or --only typed-scheme-tile (the other scenarios share one measured topology)\n${USAGE}`,
    );
  const workers = values['nginx-workers'];
  return {
    quick,
    only,
    durationS: number(values.duration, quick ? 2 : 10, 'duration'),
    warmupS: number(values.warmup, quick ? 1 : 3, 'warmup'),
    cacheMb: number(values['cache-mb'], 64, 'cache-mb'),
    nginxWorkers: workers === 'auto' ? 'auto' : number(workers, 1, 'nginx-workers'),
    keep: values.keep,
    quietBudgetS: number(values['quiet-budget'], quick ? 10 : 180, 'quiet-budget'),
    reportOnly: values['report-only'],
    profileBefore: values['profile-before'],
    archives: 30,
    scaleTimestamps: 10_000,
    mapClients: quick ? 16 : 32,
    loopFrames: 10,
    connections: 32,
    archiveConnections: 8,
    publishSamples: quick ? 4 : 20,
    extras: !quick,
    merge: values.merge,
    mrmsRuns: quick ? 1 : 3,
    mrmsUploads: quick ? 5 : 12,
  };
}
