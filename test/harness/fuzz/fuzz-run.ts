/**
 * Shared fast-check settings for the hostile-input properties.
 *
 * Every property runs twice: once on a fixed seed derived from its name, so every run (CI
 * included) checks the same cases and a failure there always reproduces; then on a fresh
 * random seed, printed in the summary, so the runs together keep exploring new cases.
 * - `FUZZ_SEED=<n>` replays a reported failure (fast-check prints `seed` and `path` in every
 *   failure message; `FUZZ_PATH` replays the exact shrunk case); it replaces both runs.
 * - `FUZZ_SCALE=<x>` multiplies every run count (e.g. 10 for a long local soak).
 * Each property counts its cases and time; a summary line per file is printed at the end.
 */
import fc from 'fast-check';

const summary: string[] = [];
let outcomes = new Map<string, number>();

/** Counts one observed outcome (e.g. a status) of the property running now, for the summary. */
export function tally(outcome: string | number): void {
  const key = String(outcome);
  outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
}

/** The fixed seed of a property: a 32-bit hash (FNV-1a) of its name. */
export function fixedSeed(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash | 0;
}

/** A fresh seed for the exploring run. */
function randomSeed(): number {
  return (Math.random() * 2 ** 32) | 0;
}

export function fuzzParameters<T>(numRuns: number, seed: number): fc.Parameters<T> {
  const scale = Number(process.env.FUZZ_SCALE ?? '1');
  const parameters: fc.Parameters<T> = {
    numRuns: Math.max(1, Math.round(numRuns * (Number.isFinite(scale) && scale > 0 ? scale : 1))),
    seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : seed,
  };
  if (process.env.FUZZ_PATH) parameters.path = process.env.FUZZ_PATH;
  return parameters;
}

/** Runs an async property over one arbitrary with the shared settings; records its case count. */
export async function checkProperty<T>(
  name: string,
  numRuns: number,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  examples: readonly T[] = [],
): Promise<number> {
  let cases = 0;
  const started = Date.now();
  outcomes = new Map();
  const property = fc.asyncProperty(arbitrary, async (value) => {
    cases++;
    await predicate(value);
  });
  const explore = randomSeed();
  const replaying = process.env.FUZZ_SEED !== undefined && process.env.FUZZ_SEED !== '';
  try {
    await fc.assert(property, {
      ...fuzzParameters<[T]>(numRuns, fixedSeed(name)),
      examples: examples.map((e): [T] => [e]),
    });
    if (!replaying) await fc.assert(property, fuzzParameters<[T]>(Math.ceil(numRuns / 2), explore));
  } finally {
    const seen = [...outcomes].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}×${n}`);
    const seeds = replaying
      ? `seed ${process.env.FUZZ_SEED}`
      : `fixed seed ${fixedSeed(name)}, random seed ${explore}`;
    summary.push(
      `${name}: ${cases} cases in ${((Date.now() - started) / 1000).toFixed(1)} s, ${seeds} (${seen.join(', ')})`,
    );
  }
  return cases;
}

/** Prints the per-property case counts (call in afterAll). */
export function printSummary(file: string): void {
  if (summary.length === 0) return;
  process.stdout.write(`[fuzz] ${file}\n${summary.map((s) => `  ${s}`).join('\n')}\n`);
  summary.length = 0;
}
