/**
 * `npm run bench -- --only mrms [--merge]`: the mrms scenario without the service topology the
 * other scenarios share.
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describeMachine } from './machine';
import { runMrmsScenario, type MrmsBenchResult } from './mrms';
import { NGINX_BINARY } from './nginx-static';
import type { BenchOptions } from './options';
import { evaluateTargets, type BenchResults } from './results';
import { log } from './runner';

const ROOT = path.resolve(__dirname, '../..');
const RESULTS_DIR = path.join(__dirname, 'results');

/**
 * `--only mrms`: the scenario alone (it starts its own processes, no shared topology). With
 * `--merge` its section replaces the one in results/latest.json and BENCHMARKS.md is written
 * again from the merged results, every other section as measured before; without it the
 * figures go to results/partial.*.
 */
export async function mrmsOnly(
  argv: readonly string[],
  opts: BenchOptions,
  run: {
    /** The measured code (commit, uncommitted changes). */
    readonly code: string;
    /** Writes BENCHMARKS.md (`full`) or results/<set>.md from results. */
    readonly writeReport: (results: BenchResults, set: string) => Promise<void>;
    /** Writes results/<set>.json and the report of a run that did not merge. */
    readonly writeOutputs: (results: BenchResults, opts: BenchOptions) => Promise<void>;
  },
): Promise<void> {
  if (!existsSync(path.join(ROOT, 'dist/bin/mrms.js'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm run bench does)');
  }
  const startedAt = new Date();
  const runDir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-bench-'));
  const command = `npm run bench -- ${argv.join(' ')}`;
  let mrms: MrmsBenchResult;
  try {
    mrms = await runMrmsScenario({
      runDir,
      runs: opts.mrmsRuns,
      uploads: opts.mrmsUploads,
      command,
      code: run.code,
    });
  } catch (err) {
    log(`logs kept in ${runDir}`);
    throw err;
  }
  if (!opts.keep) await fs.rm(runDir, { recursive: true, force: true });
  if (opts.merge) {
    const latest = path.join(RESULTS_DIR, 'latest.json');
    const stored = JSON.parse(await fs.readFile(latest, 'utf8')) as BenchResults;
    const targets = evaluateTargets(
      stored.runs,
      stored.publishVisible,
      Number(stored.settings.cacheMb),
      {
        ...(stored.idleCpu ? { idleCpu: stored.idleCpu } : {}),
        mrms,
      },
    );
    const merged: BenchResults = { ...stored, mrms, targets };
    const prettier = await import('prettier');
    const config = (await prettier.resolveConfig(latest)) ?? {};
    await fs.writeFile(
      latest,
      await prettier.format(JSON.stringify(merged), { ...config, parser: 'json' }),
    );
    await run.writeReport(merged, 'full');
    process.stdout.write(`merged the mrms figures into ${path.relative(ROOT, latest)}\n`);
    return;
  }
  const machine = describeMachine(NGINX_BINARY);
  const results: BenchResults = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    command,
    profile: opts.quick ? 'quick' : 'full',
    machine,
    settings: { code: mrms.code, loadAverageAtStart: mrms.loadAverage },
    runs: [],
    targets: evaluateTargets([], undefined, opts.cacheMb, { mrms }),
    notes: [],
    mrms,
  };
  await run.writeOutputs(results, opts);
}
