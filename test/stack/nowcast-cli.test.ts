/**
 * `npm run nowcast` (the built CLI) on small MRMS precipitation-rate files written by the
 * test: it writes `{base}_{lead}.f32` (float32 LE, the input's shape and row order, NaN where
 * there is no coverage, mm/h), reads NOAA's gzipped `MRMS_` names and the same names bare,
 * skips a cycle with a gap with its reason, refuses mixed products and mixed grids with a
 * clear error, and `verify` scores persistence and the nowcast per lead.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { encodeGrib2Message } from '../fixtures/grib2-encoder';
import { fieldAt, rainCells, rotationThrough } from '../fixtures/nowcast-fields';

const ENTRY = path.resolve(__dirname, '../../dist/bin/nowcast.js');
const WIDTH = 160;
const HEIGHT = 120;
const T0 = Date.UTC(2024, 5, 1, 12, 0);
const STEP = 120_000;
const NO_COVERAGE_COLUMNS = 20;
/** 2 cells per step eastward (an all but straight rotation about a far pivot). */
const motion = rotationThrough(WIDTH / 2, HEIGHT / 2, 2, 0, 1e-5);
const cells = rainCells(WIDTH, HEIGHT, 40, 3);

/** A PrecipRate file (discipline 209, 6/1, mm/h x 10 + 30, so -3 packs as 0) at step `t`. */
function precipRateFile(t: number, options: { width?: number; category?: number } = {}): Buffer {
  const width = options.width ?? WIDTH;
  const grid = fieldAt(cells, motion, t, width, HEIGHT, (x) => x >= NO_COVERAGE_COLUMNS);
  const integers = Array.from(grid.values, (v) => (Number.isNaN(v) ? 0 : Math.round(v * 10) + 30));
  return encodeGrib2Message({
    referenceTime: new Date(T0 + t * STEP),
    fields: [
      {
        width,
        height: HEIGHT,
        northMicro: 40_005_000,
        westMicro: 260_005_000,
        diMicro: 10_000,
        djMicro: 10_000,
        scanMode: 0,
        template: 41,
        bits: 16,
        reference: -30,
        binaryScale: 0,
        decimalScale: 1,
        category: options.category ?? 6,
        parameter: 1,
        integers,
      },
    ],
  });
}

const stamp = (t: number) =>
  new Date(T0 + t * STEP).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
const minutes = (t: number) => stamp(t).replace('-', '').slice(0, 12);
const bareName = (t: number, product = 'PrecipRate') => `${product}_00.00_${stamp(t)}.grib2`;

let root: string;
beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'nowcast-cli-'));
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

async function sequenceDir(name: string, files: Record<string, Buffer>): Promise<string> {
  const dir = path.join(root, name);
  await fs.mkdir(dir);
  for (const [file, bytes] of Object.entries(files))
    await fs.writeFile(path.join(dir, file), bytes);
  return dir;
}

function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [ENTRY, ...args], { encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

/** CSI at 1 mm/h of `forecast` against `observed`, cells unknown in either left out. */
function csiAt1(forecast: Float32Array, observed: Float32Array): number {
  let hits = 0;
  let other = 0;
  forecast.forEach((f, i) => {
    const o = observed[i]!;
    if (Number.isNaN(f) || Number.isNaN(o)) return;
    if (f >= 1 && o >= 1) hits++;
    else if (f >= 1 || o >= 1) other++;
  });
  return hits / (hits + other);
}

it('writes {base}_{lead}.f32: float32 LE, the grid shape, NaN without coverage, the echo moved', async () => {
  const dir = await sequenceDir(
    'plain',
    Object.fromEntries([0, 1, 2, 3, 4, 5].map((t) => [bareName(t), precipRateFile(t)])),
  );
  const out = path.join(root, 'plain-out');
  const result = await run(
    '--frames',
    dir,
    '--base',
    minutes(5),
    '--leads',
    '10,20',
    '--grids',
    out,
  );
  expect(result).toMatchObject({ code: 0 });
  expect((await fs.readdir(out)).sort()).toEqual([`${minutes(5)}_10.f32`, `${minutes(5)}_20.f32`]);
  const bytes = await fs.readFile(path.join(out, `${minutes(5)}_20.f32`));
  expect(bytes.length).toBe(WIDTH * HEIGHT * 4);
  const values = new Float32Array(WIDTH * HEIGHT);
  for (let i = 0; i < values.length; i++) values[i] = bytes.readFloatLE(i * 4);
  // No coverage west of column 20 stays unknown, and so do cells whose trajectories start there.
  for (let row = 0; row < HEIGHT; row++)
    for (let x = 0; x < NO_COVERAGE_COLUMNS; x++) expect(values[row * WIDTH + x]).toBeNaN();
  expect(values.some((v) => v === 0)).toBe(true);
  // 20 minutes = 10 steps of 2 cells east: the forecast matches the field moved there, and
  // beats holding the base frame still.
  const cover = (x: number) => x >= NO_COVERAGE_COLUMNS;
  const observed = fieldAt(cells, motion, 15, WIDTH, HEIGHT, cover).values;
  const latest = fieldAt(cells, motion, 5, WIDTH, HEIGHT, cover).values;
  expect(csiAt1(values, observed)).toBeGreaterThan(0.9);
  expect(csiAt1(values, observed) - csiAt1(latest, observed)).toBeGreaterThan(0.1);
});

it("reads NOAA's gzipped MRMS_ names", async () => {
  const dir = await sequenceDir(
    'noaa',
    Object.fromEntries([0, 5].map((t) => [`MRMS_${bareName(t)}.gz`, gzipSync(precipRateFile(t))])),
  );
  const result = await run(
    '--frames',
    dir,
    '--base',
    minutes(5),
    '--leads',
    '10',
    '--grids',
    path.join(root, 'noaa-out'),
  );
  expect(result).toMatchObject({ code: 0 });
  expect(await fs.readdir(path.join(root, 'noaa-out'))).toEqual([`${minutes(5)}_10.f32`]);
});

it('skips a cycle whose earlier frame is missing, with the reason', async () => {
  const dir = await sequenceDir(
    'gap',
    Object.fromEntries([1, 2, 3, 4, 5].map((t) => [bareName(t), precipRateFile(t)])),
  );
  const out = path.join(root, 'gap-out');
  const result = await run('--frames', dir, '--base', minutes(5), '--grids', out);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(
    'cycle skipped (missing-earlier-frame): no frame at 2024-06-01T12:00:00.000Z',
  );
  await expect(fs.readdir(out)).rejects.toThrow();
});

it('refuses a directory that mixes products', async () => {
  const dir = await sequenceDir('products', {
    [bareName(0)]: precipRateFile(0),
    [bareName(5)]: precipRateFile(5),
    [bareName(5, 'PrecipFlag')]: precipRateFile(5, { category: 6 }),
  });
  const result = await run(
    '--frames',
    dir,
    '--base',
    minutes(5),
    '--grids',
    path.join(root, 'p-out'),
  );
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('mixes products (PrecipFlag_00.00, PrecipRate_00.00)');
});

it('refuses frames of different grids, and fields of different products under one name', async () => {
  const grids = await sequenceDir('grids', {
    [bareName(0)]: precipRateFile(0, { width: WIDTH + 8 }),
    [bareName(5)]: precipRateFile(5),
  });
  const a = await run('--frames', grids, '--base', minutes(5), '--grids', path.join(root, 'g-out'));
  expect(a.code).toBe(1);
  expect(a.stderr).toMatch(/is on grid 168x120 .* and .* on 160x120 .*: grids differ/);
  const codes = await sequenceDir('codes', {
    [bareName(0)]: precipRateFile(0, { category: 7 }),
    [bareName(5)]: precipRateFile(5),
  });
  const b = await run('--frames', codes, '--base', minutes(5), '--grids', path.join(root, 'c-out'));
  expect(b.code).toBe(1);
  expect(b.stderr).toContain(
    'is product 209/7/1 and PrecipRate_00.00_20240601-121000.grib2 209/6/1: products differ',
  );
});

it('verify scores persistence and the nowcast per lead on every base time the sequence allows', async () => {
  const dir = await sequenceDir(
    'verify',
    Object.fromEntries(
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((t) => [bareName(t), precipRateFile(t)]),
    ),
  );
  const result = await run('verify', '--frames', dir, '--leads', '4,10');
  expect(result.code).toBe(0);
  const rows = result.stdout.trim().split('\n');
  expect(rows[0]).toBe(
    '| lead (min) | cases | CSI 1 mm/h persistence | CSI 1 mm/h nowcast | CSI 5 mm/h persistence | CSI 5 mm/h nowcast |',
  );
  // Bases 5..8 have a 4-minute observation; only base 5 a 10-minute one.
  const cells = (row: string) =>
    row
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  const [lead4, lead10] = [cells(rows[2]!), cells(rows[3]!)];
  expect(lead4.slice(0, 2)).toEqual(['4', '4']);
  expect(lead10.slice(0, 2)).toEqual(['10', '1']);
  expect(Number(lead10[3])).toBeGreaterThan(Number(lead10[2]));
});
