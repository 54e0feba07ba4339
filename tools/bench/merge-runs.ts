/**
 * `--merge` of a scenario that has baselines of its own (`typed-scheme-tile`): its runs replace
 * that scenario's runs in results/latest.json, the targets are evaluated again, and
 * BENCHMARKS.md is written from the merged results, every other section as measured before.
 * The merged run's command, code and start are kept in the settings under the scenario's name.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { evaluateTargets, type BenchResults, type RunRecord } from './results';

export async function mergeRuns(
  latest: string,
  runs: readonly RunRecord[],
  run: {
    /** When, with which command and code, under which load the runs were measured. */
    readonly measured: string;
    /** The run's settings; the ones the scenario added (`typed…`) are carried over. */
    readonly settings: Record<string, string | number | boolean>;
    readonly writeReport: (results: BenchResults, set: string) => Promise<void>;
  },
): Promise<void> {
  const { settings, writeReport } = run;
  const stored = JSON.parse(await fs.readFile(latest, 'utf8')) as BenchResults;
  const scenarios = new Set(runs.map((r) => r.scenario));
  const merged = [...stored.runs.filter((r) => !scenarios.has(r.scenario)), ...runs];
  const extra: Record<string, string | number | boolean> = {};
  for (const scenario of scenarios) {
    extra[`${scenario} measured`] = run.measured;
  }
  for (const [key, value] of Object.entries(settings))
    if (key.startsWith('typed')) extra[key] = value;
  const targets = evaluateTargets(merged, stored.publishVisible, Number(stored.settings.cacheMb), {
    ...(stored.idleCpu ? { idleCpu: stored.idleCpu } : {}),
    ...(stored.mrms ? { mrms: stored.mrms } : {}),
  });
  const results: BenchResults = {
    ...stored,
    settings: { ...stored.settings, ...extra },
    runs: merged,
    targets,
  };
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(latest)) ?? {};
  await fs.writeFile(
    latest,
    await prettier.format(JSON.stringify(results), { ...config, parser: 'json' }),
  );
  await writeReport(results, 'full');
  process.stdout.write(`merged ${[...scenarios].join(', ')} into ${path.basename(latest)}\n`);
}
