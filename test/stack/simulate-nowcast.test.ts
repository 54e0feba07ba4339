/**
 * `npm run simulate` (the built CLI, a real process) with the nowcast on: the simulator's
 * storms drift, and after its start-up frames it publishes the six forecast frames of the
 * newest one beside them (`--once` waits for them), drawn by the same renderer and palette,
 * with the contract's metadata, read back by the independent `pmtiles` reader.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PMTiles } from 'pmtiles';
import { createBufferSource } from '../fixtures/buffer-source';
import { decodeMotionComponent } from '../../src/nowcast/motion-encoding';
import { parseTimestamp } from '../../src/domain/timestamps';

jest.setTimeout(180_000);

const ENTRY = path.resolve(__dirname, '../../dist/bin/simulate.js');
const LEADS = [10, 20, 30, 40, 50, 60];

let out: string;
beforeAll(async () => {
  out = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-simulate-nowcast-'));
});
afterAll(() => fs.rm(out, { recursive: true, force: true }));

function simulate(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const args = ['--out', out, '--backfill', '6', '--max-zoom', '3', '--workers', '1', '--once'];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [ENTRY, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' },
      (error, _stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stderr }),
    );
  });
}

const metadataOf = async (name: string) =>
  (await new PMTiles(
    createBufferSource(await fs.readFile(path.join(out, name)), name),
  ).getMetadata()) as Record<string, unknown>;

it('publishes six observed frames, then the six forecasts of the newest, with the contract’s metadata', async () => {
  const run = await simulate({ NOWCAST: '1' });
  expect(run).toMatchObject({ code: 0 });
  const files = (await fs.readdir(out)).filter((f) => f.endsWith('.pmtiles')).sort();
  const observed = files.filter((f) => /^[0-9]{12}\.pmtiles$/.test(f));
  expect(observed).toHaveLength(6);
  const base = observed[5]!.slice(0, 12);
  expect(files.filter((f) => f.startsWith('forecast-'))).toEqual(
    LEADS.map((lead) => `forecast-${base}-${String(lead).padStart(3, '0')}.pmtiles`),
  );

  const baseMeta = await metadataOf(`${base}.pmtiles`);
  expect(baseMeta.kind).toBe('observed');
  const baseMs = parseTimestamp(base)!;
  for (const lead of LEADS) {
    const metadata = await metadataOf(`forecast-${base}-${String(lead).padStart(3, '0')}.pmtiles`);
    const validMs = baseMs + lead * 60_000;
    const valid = new Date(validMs).toISOString().replace(/[-:T]/g, '').slice(0, 12);
    expect(metadata).toMatchObject({
      kind: 'forecast',
      timestamp: valid,
      validTime: new Date(validMs).toISOString(),
      forecast: { base, lead, valid, leads: LEADS, method: expect.any(String) },
      product: baseMeta.product,
      renderer: baseMeta.renderer,
      palette: baseMeta.palette,
      attribution: baseMeta.attribution,
      generator: baseMeta.generator,
      seed: baseMeta.seed,
    });
    expect(metadata.name).toMatch(/forecast \+[0-9]+ min from/);
  }
  // The simulated storms drift: the motion the forecasts moved them along is not still.
  const motion = (await metadataOf(`forecast-${base}-010.pmtiles`)).motion as Parameters<
    typeof decodeMotionComponent
  >[0];
  expect(motion.width).toBeLessThanOrEqual(128);
  const speeds = [...decodeMotionComponent(motion, 'u')].map((u, i) =>
    Math.hypot(u, decodeMotionComponent(motion, 'v')[i]!),
  );
  expect(Math.max(...speeds)).toBeGreaterThan(0);
});

it('NOWCAST=0 publishes observed frames only', async () => {
  await fs.rm(out, { recursive: true, force: true });
  const run = await simulate({ NOWCAST: '0' });
  expect(run).toMatchObject({ code: 0 });
  const files = await fs.readdir(out);
  expect(files.filter((f) => f.endsWith('.pmtiles'))).toHaveLength(6);
  expect(files.filter((f) => f.startsWith('forecast-'))).toEqual([]);
});
