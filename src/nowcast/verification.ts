/**
 * Verification of a whole observed sequence: every base time the sequence allows (the frame
 * `baselineSteps` before it exists), each lead that has an observation at its valid time,
 * scored for persistence (the latest frame held still), for the nowcast, and for any other
 * forecasts the caller supplies. Tables are summed over base times per lead, so the CSI per
 * lead weighs every cell of every case alike. Frames are loaded through `load` (twice each:
 * once to remember the observation compactly, once when a cycle needs the full grid), so
 * memory stays near one full grid at a time.
 */
import type { EchoScale, Frame, Grid } from './grid';
import { extrapolate, motionBetween, type NowcastOptions } from './nowcast';
import { addAgainstClasses, classify, type ObservedClasses } from './observed-classes';
import type { OpenCv } from './opencv';
import { emptyContingency, type Contingency } from './skill';

/** The score of one method at one lead: a table per threshold and how many cases. */
export interface LeadScore {
  readonly steps: number;
  cases: number;
  readonly tables: [Contingency, Contingency];
}

/** Scores per method name, each a list in the order of the leads asked for. */
export type VerificationResult = Map<string, LeadScore[]>;

/** What a verification run needs. */
export interface VerificationInput {
  readonly cv: OpenCv;
  /** Observed frame times (epoch ms), ascending, `stepMs` apart where there is no gap. */
  readonly times: readonly number[];
  readonly stepMs: number;
  readonly load: (timeMs: number) => Promise<Frame>;
  readonly scale: EchoScale;
  readonly leads: readonly number[];
  readonly options: NowcastOptions;
  /**
   * Other methods' forecasts: the grid `steps` after `baseMs`, or `undefined` when that method
   * has none for that case (the case is then not scored for any method, so all are compared on
   * the same cases).
   */
  readonly others?: ReadonlyMap<
    string,
    (baseMs: number, steps: number) => Promise<Grid | undefined>
  >;
  /** Called after each base time, for progress. */
  readonly onBase?: (baseMs: number) => void;
}

function emptyScores(leads: readonly number[]): LeadScore[] {
  return leads.map((steps) => ({
    steps,
    cases: 0,
    tables: [emptyContingency(), emptyContingency()],
  }));
}

export async function verifySequence(input: VerificationInput): Promise<VerificationResult> {
  const { times, stepMs, leads, scale, options } = input;
  const observed = new Map<number, ObservedClasses>();
  for (const t of times) observed.set(t, classify((await input.load(t)).grid, scale.thresholds));
  const names = ['persistence', 'nowcast', ...(input.others?.keys() ?? [])];
  const result: VerificationResult = new Map(names.map((n) => [n, emptyScores(leads)]));
  let earlierFrame: Frame | undefined;
  for (const baseMs of times) {
    const earlierMs = baseMs - options.baselineSteps * stepMs;
    const scorable = leads.filter((l) => observed.has(baseMs + l * stepMs));
    if (!observed.has(earlierMs) || scorable.length === 0) continue;
    earlierFrame = await input.load(earlierMs);
    const latest = await input.load(baseMs);
    const motion = motionBetween(
      input.cv,
      earlierFrame,
      latest,
      options.baselineSteps,
      scale,
      options,
    );
    earlierFrame = undefined;
    for (const forecast of extrapolate(latest.grid, motion, scorable)) {
      const truth = observed.get(baseMs + forecast.steps * stepMs)!;
      const candidates: [string, Grid][] = [
        ['persistence', latest.grid],
        ['nowcast', forecast.grid],
      ];
      let complete = true;
      for (const [name, make] of input.others ?? []) {
        const grid = await make(baseMs, forecast.steps);
        if (!grid) complete = false;
        else candidates.push([name, grid]);
      }
      if (!complete) continue;
      const at = leads.indexOf(forecast.steps);
      for (const [name, grid] of candidates) {
        const score = result.get(name)![at]!;
        score.cases++;
        addAgainstClasses(score.tables, grid, truth, scale.thresholds);
      }
    }
    input.onBase?.(baseMs);
  }
  return result;
}
