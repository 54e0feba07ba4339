/**
 * Runs measured load against an endpoint: warm-up (discarded), then a fixed window during
 * which every watched process is sampled; records one `RunRecord` per run and prints it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadGenerator } from './load-client';
import type { PlannedRequest } from './load-job';
import type { BenchOptions } from './options';
import { single, startWindow, tree, type Watched } from './proc-stats';
import type { RunKind, RunRecord } from './results';
import { AUTH_HEADERS } from './service';
import { runWrk } from './wrk';

/** Generator CPU above which the generator is the bottleneck, so the run is measured again with wrk. */
const GENERATOR_CEILING_CORES = 0.8;

const T0 = performance.now();

export function log(line: string): void {
  const elapsed = ((performance.now() - T0) / 1000).toFixed(1).padStart(5);
  process.stdout.write(`[bench ${elapsed}s] ${line}\n`);
}

/** Something the load is sent to: a service path or a baseline. */
export interface Endpoint {
  /** Label in the table, e.g. `replica (direct)`. */
  readonly against: string;
  readonly kind: RunKind;
  readonly url: string;
  /** Processes serving it (shown in its rows). */
  readonly shown: readonly string[];
  /** Headers of every request; default the bench credentials. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Load {
  readonly sequences: readonly (readonly PlannedRequest[])[];
  readonly expect: readonly number[];
  readonly connections: number;
  /** Bounded runs: stop after this many responses (the duration still caps it). */
  readonly amount?: number;
  /** No warm-up: the measured requests are the first (a key's quota must not be spent before). */
  readonly skipWarmup?: boolean;
  /** Warm up with other requests than the measured ones (first-touch runs). */
  readonly warmup?: { sequences: readonly (readonly PlannedRequest[])[]; amount: number };
}

/** Other load (cores) below which the machine counts as quiet. */
const QUIET_CORES = 0.15;

export class Runner {
  readonly runs: RunRecord[] = [];
  private readonly watched = new Map<string, Watched>();
  /** Seconds left for waiting on other users of the machine, over the whole run. */
  private quietBudgetS: number;

  constructor(
    private readonly opts: BenchOptions,
    private readonly gen: LoadGenerator,
  ) {
    this.watched.set('generator', single('generator', gen.pid));
    this.quietBudgetS = opts.quietBudgetS;
  }

  /**
   * This machine may be shared (other sessions run test suites on it). Before a measured
   * window, wait, within a budget for the whole run, until processes the bench did not start
   * use less than QUIET_CORES; whatever remains is reported per run as "other load".
   */
  private async waitForQuiet(id: string): Promise<void> {
    const started = performance.now();
    for (;;) {
      const probe = startWindow([...this.watched.values()], 1000);
      await sleep(500);
      const { otherCores } = probe.stop();
      const waitedS = (performance.now() - started) / 1000;
      if (otherCores < QUIET_CORES || waitedS >= this.quietBudgetS) {
        if (waitedS > 1)
          log(`waited ${waitedS.toFixed(1)} s for other load to settle before ${id}`);
        this.quietBudgetS = Math.max(0, this.quietBudgetS - waitedS);
        return;
      }
    }
  }

  /** Samples `pid` (and its children when `isTree`: nginx) in every run from now on. */
  watch(name: string, pid: number, isTree = false): void {
    this.watched.set(name, isTree ? tree(name, pid) : single(name, pid));
  }

  unwatch(name: string): void {
    this.watched.delete(name);
  }

  async measure(scenario: string, endpoint: Endpoint, load: Load): Promise<RunRecord> {
    const id = `${scenario} · ${endpoint.against}`;
    const job = {
      baseUrl: endpoint.url,
      connections: load.connections,
      headers: { ...(endpoint.headers ?? AUTH_HEADERS) },
      sequences: load.sequences,
      expect: load.expect,
      timeoutS: 10,
    };
    const { durationS, warmupS } = this.opts;
    if (load.skipWarmup) {
      // Measured from the first request on.
    } else if (load.warmup) {
      await this.gen.run({ ...job, ...load.warmup, label: `warm-up ${id}`, durationS });
    } else if (warmupS > 0) {
      await this.gen.run({ ...job, label: `warm-up ${id}`, durationS: warmupS });
    }
    await this.waitForQuiet(id);
    const from = Date.now();
    const window = startWindow([...this.watched.values()]);
    const result = await this.gen.run({ ...job, label: id, durationS, amount: load.amount });
    const { processes, otherCores } = window.stop();
    const to = Date.now();
    const run: RunRecord = {
      id,
      scenario,
      against: endpoint.against,
      kind: endpoint.kind,
      connections: load.connections,
      result,
      processes,
      otherCores,
      shown: [...endpoint.shown, 'generator'],
      windowMs: { from, to },
    };
    this.runs.push(run);
    this.print(run);
    const generatorCores = processes.generator?.cpuCores ?? 0;
    if (
      generatorCores > GENERATOR_CEILING_CORES &&
      !load.amount &&
      !load.warmup &&
      !this.opts.quick
    ) {
      await this.measureWithWrk(scenario, endpoint, job);
    }
    return run;
  }

  /** The same load through wrk, recorded beside the autocannon run. */
  private async measureWithWrk(
    scenario: string,
    endpoint: Endpoint,
    job: Omit<Parameters<typeof runWrk>[0], 'label' | 'durationS'>,
  ): Promise<void> {
    const id = `${scenario} · ${endpoint.against} [wrk]`;
    await this.waitForQuiet(id);
    const from = Date.now();
    const window = startWindow([...this.watched.values()]);
    let result;
    try {
      result = await runWrk({ ...job, label: id, durationS: this.opts.durationS });
    } catch (err) {
      window.stop();
      log(`${id}: wrk failed (${(err as Error).message.split('\n')[0]})`);
      return;
    }
    const { processes, otherCores } = window.stop();
    const run: RunRecord = {
      id,
      scenario,
      against: endpoint.against,
      kind: endpoint.kind,
      connections: job.connections,
      result,
      processes,
      otherCores,
      shown: [...endpoint.shown],
      windowMs: { from, to: Date.now() },
      generator: 'wrk',
    };
    this.runs.push(run);
    this.print(run);
  }

  private print(run: RunRecord): void {
    const { result, processes, otherCores } = run;
    const l = result.latencyMs;
    log(
      `${run.id.padEnd(60)} ${String(result.rps).padStart(6)} req/s  p50 ${l.p50.toFixed(2)}  ` +
        `p99 ${l.p99.toFixed(2)}  p99.9 ${l.p999.toFixed(2)} ms  ${result.mbPerS} MB/s  ` +
        `errors ${result.errors}  generator ${processes.generator?.cpuCores ?? '?'} cores  other load ${otherCores} cores`,
    );
  }
}
