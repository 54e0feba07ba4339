/**
 * How the nowcast's settings were chosen: the skill (CSI at the product's two thresholds, per
 * lead) and CPU time per cycle of setting variants on the same base times of a decoded
 * sequence (the `{YYYYMMDDHHmm}.f32` frames and grid.json that nowcast-frames.ts writes).
 *
 *   npx tsx tools/bench/nowcast-options.ts --decoded DIR --bases 6,8,10,12,14 --leads 5,10 \
 *     --variants '{"f8":{"factor":8},"f4":{"factor":4}}'
 *
 * Bases are indices into the sorted frames, leads in time steps; a variant overrides
 * DEFAULT_NOWCAST_OPTIONS (its `motion` part field by field). Loads every frame into memory
 * (about 100 MB each for the CONUS mosaic).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { RATE_SCALE, REFLECTIVITY_SCALE, type Grid } from '../../src/nowcast/grid';
import {
  DEFAULT_NOWCAST_OPTIONS,
  extrapolate,
  motionBetween,
  type NowcastOptions,
} from '../../src/nowcast/nowcast';
import { loadOpenCv } from '../../src/nowcast/opencv';
import { addContingency, csi, emptyContingency } from '../../src/nowcast/skill';

type Variant = Partial<Omit<NowcastOptions, 'motion'>> & {
  motion?: Partial<NowcastOptions['motion']>;
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      decoded: { type: 'string' },
      bases: { type: 'string', default: '6,8,10,12,14' },
      leads: { type: 'string', default: '5,10' },
      variants: { type: 'string', default: '{"default":{}}' },
    },
  });
  if (!values.decoded) throw new Error('--decoded DIR is required');
  const dir = values.decoded;
  const grid = JSON.parse(fs.readFileSync(path.join(dir, 'grid.json'), 'utf8')) as {
    width: number;
    height: number;
    reflectivity: boolean;
  };
  const scale = grid.reflectivity ? REFLECTIVITY_SCALE : RATE_SCALE;
  const names = fs
    .readdirSync(dir)
    .filter((n) => /^[0-9]{12}\.f32$/.test(n))
    .sort();
  const cache = new Map<number, Grid>();
  const load = (i: number): Grid => {
    let g = cache.get(i);
    if (!g) {
      const bytes = fs.readFileSync(path.join(dir, names[i]!));
      g = {
        width: grid.width,
        height: grid.height,
        values: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4),
      };
      cache.set(i, g);
    }
    return g;
  };
  const bases = values.bases.split(',').map(Number);
  const leads = values.leads.split(',').map(Number);
  const { cv } = await loadOpenCv();
  const variants = JSON.parse(values.variants) as Record<string, Variant>;
  process.stdout.write(
    `| variant | ${leads.map((l) => `lead ${l} steps: CSI ${scale.thresholds.join(' / ')}`).join(' | ')} | CPU-s per cycle |\n`,
  );
  process.stdout.write(`|${' --- |'.repeat(leads.length + 2)}\n`);
  for (const [name, variant] of Object.entries(variants)) {
    const options: NowcastOptions = {
      ...DEFAULT_NOWCAST_OPTIONS,
      ...variant,
      motion: { ...DEFAULT_NOWCAST_OPTIONS.motion, ...variant.motion },
    };
    const tables = leads.map(() => [emptyContingency(), emptyContingency()] as const);
    const began = process.cpuUsage();
    for (const base of bases) {
      if (base - options.baselineSteps < 0)
        throw new Error(`base ${base} has no frame ${options.baselineSteps} steps before it`);
      const latest = { timeMs: 0, grid: load(base) };
      const earlier = { timeMs: 0, grid: load(base - options.baselineSteps) };
      const motion = motionBetween(cv, earlier, latest, options.baselineSteps, scale, options);
      const scorable = leads.filter((l) => base + l < names.length);
      for (const forecast of extrapolate(latest.grid, motion, scorable)) {
        const at = leads.indexOf(forecast.steps);
        scale.thresholds.forEach((t, k) =>
          addContingency(tables[at]![k]!, forecast.grid, load(base + forecast.steps), t),
        );
      }
    }
    const used = process.cpuUsage(began);
    const cells = tables.map((t) => t.map((c) => csi(c).toFixed(3)).join(' / '));
    process.stdout.write(
      `| ${name} | ${cells.join(' | ')} | ${((used.user + used.system) / 1e6 / bases.length).toFixed(1)} |\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
