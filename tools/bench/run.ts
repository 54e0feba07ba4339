/**
 * `npm run bench`: starts the service in its production shape and the baselines on loopback,
 * runs every scenario (warm-up, then a fixed measured window), and writes the JSON results,
 * BENCHMARKS.md and the chart. BENCHMARKS.md says what each scenario and baseline is;
 * `npm run bench -- --help` lists the options.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadFrames } from './archives';
import { renderChart } from './chart';
import { startLoadGenerator } from './load-client';
import { describeMachine, measureParallelSpeedup } from './machine';
import { NGINX_BINARY } from './nginx-static';
import { parseOptions, SCENARIOS, type BenchOptions } from './options';
import type { PublishVisibleResult } from './publish-visible';
import { benchmarksMarkdown, consoleTable, targetLine } from './report';
import { evaluateTargets, type BenchResults } from './results';
import type { ProfileBreakdown } from './cpu-profile';
import type { LeaseAccuracy } from './lease-accuracy';
import { log, Runner } from './runner';
import {
  coldRangeScenario,
  fullArchiveScenario,
  leaseScenario,
  profileScenario,
  type IdleCpu,
  hotRangeScenario,
  tileScenario,
  schemeTileScenario,
  logInfoScenario,
  mapClientScenario,
  mapSequences,
  publishScenario,
  scaleScenario,
  statusScenario,
  type ScenarioContext,
} from './scenarios';
import { INGEST_POLL_S, startTopology } from './topology';
import { redisCommandsScenario } from './redis-commands';
import { usageScenario } from './usage';
import { runMrmsScenario, type MrmsBenchResult } from './mrms';
import { mrmsOnly } from './mrms-only';
import { mergeRuns } from './merge-runs';
import { typedSchemeTileScenario } from './typed-scheme-tile';

const ROOT = path.resolve(__dirname, '../..');
const RESULTS_DIR = path.join(__dirname, 'results');

/** The commit measured, and whether the served code (src/, nginx/) differs from it. */
function codeVersion(): string {
  const git = (args: string[]) =>
    spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() ?? '';
  const commit = git(['rev-parse', '--short', 'HEAD']) || 'unknown';
  const dirty = git(['status', '--porcelain', '--', 'src', 'nginx']).split('\n').filter(Boolean);
  return dirty.length === 0
    ? `commit ${commit}`
    : `commit ${commit} + uncommitted changes in ${dirty.length} files under src/ or nginx/`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const opts = parseOptions(argv);
  if (opts.reportOnly) {
    const latest = path.join(RESULTS_DIR, 'latest.json');
    const stored = JSON.parse(await fs.readFile(latest, 'utf8')) as BenchResults;
    // Targets are evaluated again, so a change to their definitions shows without a rerun.
    const cacheMb = Number(stored.settings.cacheMb);
    const targets = evaluateTargets(stored.runs, stored.publishVisible, cacheMb, {
      ...(stored.idleCpu ? { idleCpu: stored.idleCpu } : {}),
      ...(stored.mrms ? { mrms: stored.mrms } : {}),
    });
    await writeReport({ ...stored, targets }, 'full');
    return;
  }
  if ([...opts.only].every((s) => s === 'mrms')) {
    await mrmsOnly(argv, opts, { code: codeVersion(), writeReport, writeOutputs });
    return;
  }
  const startedAt = new Date();
  if (!existsSync(path.join(ROOT, 'dist/bin/api.js'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm run bench does)');
  }
  const runDir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-bench-'));
  await fs.chmod(runDir, 0o755);
  log(`run directory ${runDir}`);
  const machine = describeMachine(NGINX_BINARY);
  machine.parallelSpeedup = await measureParallelSpeedup();
  log(
    `${machine.cpuModel}, ${machine.cores} cores (two busy processes get ${machine.parallelSpeedup}x ` +
      `one's work done), ${machine.memoryGiB} GiB, Node ${machine.node}, nginx ${machine.nginx}, redis ${machine.redis}`,
  );
  const frames = await loadFrames({
    count: opts.archives,
    maxZoom: 7,
    cacheDir: path.join(ROOT, '.tmp/bench'),
    log,
  });
  const sizes = frames.map((f) => Math.round(f.bytes.length / 1024));
  const settings: Record<string, string | number | boolean> = {
    code: codeVersion(),
    loadAverageAtStart: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    warmupS: opts.warmupS,
    durationS: opts.durationS,
    cacheMb: opts.cacheMb,
    nginxWorkers: opts.nginxWorkers,
    archives: opts.archives,
    archiveKiB: `${Math.min(...sizes)}-${Math.max(...sizes)} KiB each`,
    mapClients: opts.mapClients,
    loopFrames: opts.loopFrames,
    connections: opts.connections,
    archiveConnections: opts.archiveConnections,
    scaleTimestamps: opts.scaleTimestamps,
    ingestPollS: INGEST_POLL_S,
    quietBudgetS: opts.quietBudgetS,
  };

  const gen = await startLoadGenerator();
  const runner = new Runner(opts, gen);
  let topo: Awaited<ReturnType<typeof startTopology>> | undefined;
  let ok = false;
  const stopAll = async () => {
    await topo?.stop();
    await gen.stop();
  };
  const onSignal = () => void stopAll().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let publishVisible: PublishVisibleResult | undefined;
  let idleCpu: IdleCpu | undefined;
  let profiles: ProfileBreakdown[] | undefined;
  let leaseAccuracy: LeaseAccuracy[] | undefined;
  let mrms: MrmsBenchResult | undefined;
  const notes: string[] = [];
  try {
    topo = await startTopology({ opts, runner, frames, runDir });
    settings.edgeChange = topo.edgeChange;
    const ctx: ScenarioContext = { opts, runner, topo, frames, settings };
    const has = (name: (typeof SCENARIOS)[number]) => opts.only.has(name);
    const sequences =
      has('map-client') || has('scale') || has('log-info') ? await mapSequences(ctx) : [];
    if (has('status')) await statusScenario(ctx);
    if (has('hot-range')) await hotRangeScenario(ctx);
    if (has('tile')) await tileScenario(ctx);
    if (has('scheme-tile')) await schemeTileScenario(ctx);
    if (has('typed-scheme-tile')) await typedSchemeTileScenario(ctx, runDir);
    if (has('map-client')) {
      await mapClientScenario(ctx, sequences);
      await redisCommandsScenario(ctx, sequences);
    }
    if (has('full-archive')) await fullArchiveScenario(ctx);
    if (has('cold-range')) await coldRangeScenario(ctx);
    if (has('log-info')) await logInfoScenario(ctx, sequences);
    if (has('scale')) idleCpu = await scaleScenario(ctx, sequences);
    if (has('usage')) await usageScenario(ctx);
    if (has('lease')) leaseAccuracy = await leaseScenario(ctx);
    if (has('profile')) profiles = await profileScenario(ctx);
    if (has('publish')) {
      log(`publish-to-visible: ${opts.publishSamples} uploads, polling both replicas`);
      publishVisible = await publishScenario(ctx);
      const p = publishVisible;
      log(
        `publish-to-visible: p50 ${p.p50Ms} ms, p99 ${p.p99Ms} ms, max ${p.maxMs} ms, missed ${p.missed}`,
      );
    }
    notes.push(...topo.notes);
    if (has('mrms')) {
      // Alone on the machine: the service topology is stopped first.
      await topo.stop();
      topo = undefined;
      mrms = await runMrmsScenario({
        runDir,
        runs: opts.mrmsRuns,
        uploads: opts.mrmsUploads,
        command: `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
        code: String(settings.code),
      });
    }
    ok = true;
  } finally {
    await stopAll();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (ok && !opts.keep) await fs.rm(runDir, { recursive: true, force: true });
    else log(`logs and configs kept in ${runDir}`);
  }

  if (opts.merge) {
    // `--only typed-scheme-tile --merge` (options.ts allows no other merge here).
    const command = `npm run bench -- ${argv.join(' ')}`;
    await mergeRuns(path.join(RESULTS_DIR, 'latest.json'), runner.runs, {
      measured:
        `${startedAt.toISOString()} with \`${command}\` (${String(settings.code)}), ` +
        `load average at its start ${String(settings.loadAverageAtStart)}`,
      settings,
      writeReport,
    });
    return;
  }
  const beforeFile = path.join(RESULTS_DIR, 'profile-before.json');
  if (profiles && opts.profileBefore) {
    await fs.mkdir(RESULTS_DIR, { recursive: true });
    const stored = { measuredAt: startedAt.toISOString(), code: String(settings.code), profiles };
    await fs.writeFile(beforeFile, `${JSON.stringify(stored, null, 2)}\n`);
    log(`stored the profile breakdown as "before" in ${path.relative(ROOT, beforeFile)}`);
  }
  const profilesBefore = existsSync(beforeFile)
    ? (JSON.parse(await fs.readFile(beforeFile, 'utf8')) as BenchResults['profilesBefore'])
    : undefined;
  const results: BenchResults = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    command: `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
    profile: opts.quick ? 'quick' : 'full',
    machine,
    settings,
    runs: runner.runs,
    publishVisible,
    targets: evaluateTargets(runner.runs, publishVisible, opts.cacheMb, {
      ...(idleCpu ? { idleCpu } : {}),
      ...(mrms ? { mrms } : {}),
    }),
    ...(leaseAccuracy ? { leaseAccuracy } : {}),
    ...(profiles ? { profiles } : {}),
    ...(idleCpu ? { idleCpu } : {}),
    ...(profilesBefore ? { profilesBefore } : {}),
    ...(mrms ? { mrms } : {}),
    notes: [
      ...notes,
      'The load generator is one autocannon process (one thread) sharing the machine with everything it measures; its CPU use is in every row. Its per-response copy of the body into a string is disabled (bodies are counted, not kept), and its in-flight queue is reset on every reconnect: unpatched, autocannon 8 keeps the request lost with a connection the server closed (nginx closes keep-alive connections after 1000 requests) and from then on pairs every response with the request before it, inflating latency by a round trip per reconnect.',
      'Requests through nginx carry no Accept-Encoding, so the status document is not gzipped at the edge.',
    ],
  };
  await writeOutputs(results, opts);
}

async function writeOutputs(results: BenchResults, opts: BenchOptions): Promise<void> {
  const everything = SCENARIOS.filter((s) => !(opts.quick && s === 'log-info'));
  const complete = everything.every((s) => opts.only.has(s));
  const set = opts.quick ? 'quick' : complete ? 'full' : 'partial';
  const jsonFile = path.join(RESULTS_DIR, set === 'full' ? 'latest.json' : `${set}.json`);
  await fs.mkdir(RESULTS_DIR, { recursive: true });
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(jsonFile)) ?? {};
  const json = await prettier.format(JSON.stringify(results), { ...config, parser: 'json' });
  await fs.writeFile(jsonFile, json);
  await writeReport(results, set);
  const targets = results.targets.map(targetLine).join('\n');
  process.stdout.write(`\n${consoleTable(results.runs)}\n\nTargets:\n${targets}\n\n`);
  process.stdout.write(`wrote ${path.relative(ROOT, jsonFile)}\n`);
}

/** BENCHMARKS.md (or results/<set>.md) and the chart, with tools/bench/FINDINGS.md included. */
async function writeReport(results: BenchResults, set: string): Promise<void> {
  const full = set === 'full';
  const mdFile = full ? path.join(ROOT, 'BENCHMARKS.md') : path.join(RESULTS_DIR, `${set}.md`);
  const svgFile = full
    ? path.join(ROOT, 'docs', 'bench-latency.svg')
    : path.join(RESULTS_DIR, `${set}-latency.svg`);
  await fs.mkdir(path.dirname(svgFile), { recursive: true });
  // Written as prettier formats them, so `npm run lint` (prettier --check) stays clean.
  const prettier = await import('prettier');
  await fs.writeFile(svgFile, await renderChart(results));
  const findings = await fs.readFile(path.join(__dirname, 'FINDINGS.md'), 'utf8').catch(() => '');
  const chartRef = path.relative(path.dirname(mdFile), svgFile).split(path.sep).join('/');
  const markdown = benchmarksMarkdown(results, findings, chartRef);
  const config = (await prettier.resolveConfig(mdFile)) ?? {};
  await fs.writeFile(mdFile, await prettier.format(markdown, { ...config, parser: 'markdown' }));

  process.stdout.write(`wrote ${path.relative(ROOT, mdFile)}, ${path.relative(ROOT, svgFile)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
