/**
 * The two commands of the nowcast CLI (src/bin/nowcast.ts): one forecast cycle written as
 * `.f32` grids, and the verification of a whole sequence. File I/O lives here; the
 * computation is src/nowcast/.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { formatTimestamp } from '../domain/timestamps';
import type { Frame, Grid } from '../nowcast/grid';
import { DEFAULT_NOWCAST_OPTIONS, extrapolate, motionBetween } from '../nowcast/nowcast';
import type { OpenCv } from '../nowcast/opencv';
import { planCycle } from '../nowcast/sequence';
import { csi } from '../nowcast/skill';
import { verifySequence, type VerificationResult } from '../nowcast/verification';
import type { NowcastInput } from '../sources/mrms/mrms-nowcast-input';
import {
  checkSameKind,
  listFrameFiles,
  loadFrameFile,
  NowcastInputError,
  type FrameFile,
} from './nowcast-frames';

/** The bytes of a grid as little-endian float32. */
function float32le(grid: Grid): Buffer {
  const bytes = Buffer.from(grid.values.buffer, grid.values.byteOffset, grid.values.byteLength);
  if (os.endianness() === 'LE') return bytes;
  const swapped = Buffer.alloc(bytes.length);
  for (let i = 0; i < grid.values.length; i++) swapped.writeFloatLE(grid.values[i]!, i * 4);
  return swapped;
}

/** One cycle: reads the base frame and the one the motion is measured from, writes each lead. */
export async function runForecast(
  cv: OpenCv,
  args: { frames: string; baseMs: number; leads: number[]; grids: string },
  stepMinutes: number,
): Promise<number> {
  const options = DEFAULT_NOWCAST_OPTIONS;
  const stepMs = stepMinutes * 60_000;
  const files = await listFrameFiles(args.frames);
  const wanted = [args.baseMs - options.baselineSteps * stepMs, args.baseMs];
  const chosen = wanted.map((t) => files.find((f) => f.timeMs === t));
  const inputs: NowcastInput[] = [];
  for (const file of chosen) if (file) inputs.push(await loadFrameFile(file));
  const present = chosen.filter((f): f is FrameFile => f !== undefined);
  checkSameKind(
    inputs,
    present.map((f) => f.name),
  );
  const plan = planCycle(
    inputs.map((i) => i.frame),
    args.baseMs,
    stepMs,
    options.baselineSteps,
  );
  if (!plan.ok) throw new NowcastInputError(`cycle skipped (${plan.reason}): ${plan.detail}`);
  const scale = inputs[0]!.scale;
  const motion = motionBetween(
    cv,
    plan.earlier,
    plan.latest,
    options.baselineSteps,
    scale,
    options,
  );
  await mkdir(args.grids, { recursive: true });
  const base = formatTimestamp(args.baseMs);
  const steps = args.leads.map((l) => l / stepMinutes);
  for (const forecast of extrapolate(plan.latest.grid, motion, steps)) {
    const target = path.join(args.grids, `${base}_${forecast.steps * stepMinutes}.f32`);
    await writeFile(`${target}.partial`, float32le(forecast.grid));
    await rename(`${target}.partial`, target);
    process.stderr.write(`nowcast: wrote ${target}\n`);
  }
  return 0;
}

/** A compared method's forecast file as a grid, or `undefined` when it has none. */
async function readF32(file: string, like: Grid): Promise<Grid | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return undefined;
  }
  if (bytes.length !== like.width * like.height * 4)
    throw new NowcastInputError(
      `${file}: ${bytes.length} bytes, not a ${like.width}x${like.height} float32 grid`,
    );
  const values = new Float32Array(like.width * like.height);
  for (let i = 0; i < values.length; i++) values[i] = bytes.readFloatLE(i * 4);
  return { width: like.width, height: like.height, values };
}

function table(
  result: VerificationResult,
  leads: readonly number[],
  stepMinutes: number,
  unit: string,
  thresholds: readonly number[],
): string {
  const names = [...result.keys()];
  const head = `| lead (min) | cases | ${thresholds.flatMap((t) => names.map((n) => `CSI ${t} ${unit} ${n}`)).join(' | ')} |`;
  const rule = `|${' --- |'.repeat(2 + thresholds.length * names.length)}`;
  const rows = leads.map((_, i) => {
    const cases = result.get('nowcast')![i]!.cases;
    const cells = thresholds.flatMap((_, t) =>
      names.map((n) => {
        const v = csi(result.get(n)![i]!.tables[t]!);
        return cases === 0 || Number.isNaN(v) ? '-' : v.toFixed(3);
      }),
    );
    return `| ${result.get('nowcast')![i]!.steps * stepMinutes} | ${cases} | ${cells.join(' | ')} |`;
  });
  return [head, rule, ...rows].join('\n');
}

/** Verifies every base time of the directory's sequence; prints a Markdown table. */
export async function runVerify(
  cv: OpenCv,
  args: { frames: string; leads: number[]; compare: (readonly [string, string])[]; json?: string },
  stepMinutes: number,
): Promise<number> {
  const stepMs = stepMinutes * 60_000;
  const files = await listFrameFiles(args.frames);
  if (files.length === 0) throw new NowcastInputError(`${args.frames} holds no MRMS file`);
  const byTime = new Map(files.map((f) => [f.timeMs, f]));
  let first: { input: NowcastInput; name: string } | undefined;
  const load = async (timeMs: number): Promise<Frame> => {
    const file = byTime.get(timeMs)!;
    const input = await loadFrameFile(file);
    first ??= { input, name: file.name };
    checkSameKind([first.input, input], [first.name, file.name]);
    return input.frame;
  };
  const firstInput = await loadFrameFile(files[0]!);
  const scale = firstInput.scale;
  const like = firstInput.frame.grid;
  const others = new Map(
    args.compare.map(([name, dir]) => [
      name,
      (baseMs: number, steps: number) =>
        readF32(path.join(dir, `${formatTimestamp(baseMs)}_${steps * stepMinutes}.f32`), like),
    ]),
  );
  const steps = args.leads.map((l) => l / stepMinutes);
  const result = await verifySequence({
    cv,
    times: files.map((f) => f.timeMs),
    stepMs,
    load,
    scale,
    leads: steps,
    options: DEFAULT_NOWCAST_OPTIONS,
    others,
    onBase: (t) => process.stderr.write(`nowcast verify: base ${formatTimestamp(t)} scored\n`),
  });
  process.stdout.write(`${table(result, steps, stepMinutes, scale.unit, scale.thresholds)}\n`);
  if (args.json) {
    const json = Object.fromEntries(
      [...result].map(([name, scores]) => [
        name,
        scores.map((s) => ({
          lead: s.steps * stepMinutes,
          cases: s.cases,
          csi: s.tables.map((t, i) => ({ threshold: scale.thresholds[i], csi: csi(t), ...t })),
        })),
      ]),
    );
    await writeFile(args.json, `${JSON.stringify({ unit: scale.unit, methods: json }, null, 2)}\n`);
  }
  return 0;
}
