/**
 * Peak memory of a spawned process, as `test/fixtures/peak-rss-report.mjs` reports it when
 * preloaded (`NODE_OPTIONS: PEAK_RSS_OPTIONS`): the getrusage maximum resident set at exit.
 */
import path from 'node:path';

/** `NODE_OPTIONS` value that preloads the report. */
export const PEAK_RSS_OPTIONS = `--import ${path.resolve(__dirname, '../fixtures/peak-rss-report.mjs')}`;

/** The peak RSS in MiB that `output` (the exited process's stderr) reports; throws without one. */
export function peakRssMib(output: string): number {
  const match = /\[peak-rss\] (\d+)/.exec(output);
  if (!match) throw new Error(`no [peak-rss] line in the process output:\n${output.slice(-2000)}`);
  return Number(match[1]) / 1024;
}
