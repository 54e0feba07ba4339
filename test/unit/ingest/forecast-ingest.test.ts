/**
 * Forecast archives through one ingest pass over a real directory (embedded mode's source),
 * with the in-memory catalogs: validated like observed archives plus their forecast metadata,
 * listed only once a base is complete, the newest complete base listed, an older one readable
 * for the grace and then gone with its objects, a base past retention gone too, and invalid
 * forecasts rejected once each with their reason. Forecast frames never enter the observed
 * catalog.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFsArchiveSource } from '../../../src/adapters/fs/archive-store';
import { createMemoryCatalog } from '../../../src/adapters/memory/catalog';
import { createMemoryForecastCatalog } from '../../../src/adapters/memory/forecast-catalog';
import { formatTimestamp } from '../../../src/domain/timestamps';
import { createForecastCycle } from '../../../src/ingest/forecast-cycle';
import { createIngestCycle } from '../../../src/ingest/ingest-cycle';
import { createIngestPass } from '../../../src/ingest/ingest-pass';
import { createSilentLogger } from '../../../src/logger';
import { buildArchive } from '../../fixtures/archives';
import {
  forecastArchive,
  forecastCycleArchives,
  forecastFileName,
} from '../../harness/forecast-archives';

const START = Date.UTC(2026, 10, 28, 12, 0);
const GRACE_S = 600;
let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'forecast-ingest-'));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

const ts = (minutesAgo: number) => formatTimestamp(START - minutesAgo * 60_000);
const write = (name: string, bytes: Buffer) => fs.writeFile(path.join(dir, name), bytes);
const exists = (name: string) =>
  fs.access(path.join(dir, name)).then(
    () => true,
    () => false,
  );

function setup(forecasts = createMemoryForecastCatalog()) {
  const clock = { now: START };
  const catalog = createMemoryCatalog();
  const rejected: Array<[string, string]> = [];
  const logger = createSilentLogger();
  const source = createFsArchiveSource(dir);
  const now = () => clock.now;
  const onRejected = (name: string, reason: string) => rejected.push([name, reason]);
  const pass = createIngestPass({
    source,
    retentionS: 3600,
    now,
    observed: (observedSource) =>
      createIngestCycle({
        source: observedSource,
        catalog,
        logger,
        retentionS: 3600,
        now,
        onRejected,
      }),
    forecast: createForecastCycle({
      source,
      catalog: forecasts,
      logger,
      graceMs: GRACE_S * 1000,
      now,
      onRejected,
    }),
  });
  return { clock, catalog, forecasts, pass, rejected };
}

it('lists a base only once every lead is ingested, in lead order, never in the observed catalog', async () => {
  const { catalog, forecasts, pass, rejected } = setup();
  const base = ts(2);
  await write(`${base}.pmtiles`, buildArchive(base));
  const frames = forecastCycleArchives(base, { leads: [10, 20, 30] });
  for (const [name, bytes] of frames.slice(0, 2)) await write(name, bytes);
  await pass.run();
  expect(catalog.current().timestamps).toEqual([base]);
  expect(forecasts.current().listed).toEqual([]);
  expect(forecasts.current().get(`forecast-${base}-010`)).toBeUndefined();

  await write(...frames[2]!);
  await pass.run();
  expect(forecasts.current().listed).toEqual([
    { base, lead: 10, valid: ts(-8) },
    { base, lead: 20, valid: ts(-18) },
    { base, lead: 30, valid: ts(-28) },
  ]);
  const meta = forecasts.current().get(`forecast-${base}-030`)!;
  const stat = await fs.stat(path.join(dir, frames[2]![0]));
  expect(meta.size).toBe(stat.size);
  expect(catalog.current().timestamps).toEqual([base]);
  expect(rejected).toEqual([]);
});

it('lists the newer base; the older stays readable for the grace, then leaves and its objects are deleted', async () => {
  const { clock, forecasts, pass } = setup();
  const older = ts(4);
  const newer = ts(2);
  for (const [name, bytes] of forecastCycleArchives(older, { leads: [10, 20] }))
    await write(name, bytes);
  await pass.run();
  expect(forecasts.current().listedBase).toBe(older);

  for (const [name, bytes] of forecastCycleArchives(newer, { leads: [10, 20] }))
    await write(name, bytes);
  await pass.run();
  expect(forecasts.current().listedBase).toBe(newer);
  expect(forecasts.current().listed.map((f) => f.base)).toEqual([newer, newer]);
  expect(forecasts.current().get(`forecast-${older}-020`)).toBeDefined();

  clock.now += (GRACE_S - 1) * 1000;
  await pass.run();
  expect(forecasts.current().get(`forecast-${older}-020`)).toBeDefined();
  expect(await exists(forecastFileName({ base: older, lead: 20 }))).toBe(true);

  clock.now += 1000;
  await pass.run();
  expect(forecasts.current().get(`forecast-${older}-020`)).toBeUndefined();
  expect(forecasts.current().get(`forecast-${newer}-020`)).toBeDefined();
  expect(await exists(forecastFileName({ base: older, lead: 10 }))).toBe(false);
  expect(await exists(forecastFileName({ base: older, lead: 20 }))).toBe(false);
  expect(await exists(forecastFileName({ base: newer, lead: 20 }))).toBe(true);
});

it('a new leader keeps the grace the stored manifest started', async () => {
  const shared = createMemoryForecastCatalog();
  const first = setup(shared);
  const older = ts(4);
  const newer = ts(2);
  for (const base of [older, newer])
    for (const [name, bytes] of forecastCycleArchives(base, { leads: [10] }))
      await write(name, bytes);
  await first.pass.run();
  expect(shared.current().get(`forecast-${older}-010`)).toBeDefined();

  const second = setup(shared);
  second.clock.now = START + GRACE_S * 1000;
  await second.pass.run();
  expect(shared.current().get(`forecast-${older}-010`)).toBeUndefined();
  expect(shared.current().listedBase).toBe(newer);
});

it('a base that leaves observed retention leaves the forecast catalog, and its objects go', async () => {
  const { clock, forecasts, pass } = setup();
  const base = ts(2);
  for (const [name, bytes] of forecastCycleArchives(base, { leads: [10] }))
    await write(name, bytes);
  await pass.run();
  expect(forecasts.current().listedBase).toBe(base);
  clock.now += 3600 * 1000;
  await pass.run();
  expect(forecasts.current().listed).toEqual([]);
  expect(forecasts.current().get(`forecast-${base}-010`)).toBeUndefined();
  expect(await exists(forecastFileName({ base, lead: 10 }))).toBe(false);
});

it('rejects each invalid forecast once with its reason; a forecast name is never bad-name', async () => {
  const { forecasts, pass, rejected } = setup();
  const base = ts(2);
  const leads = [10, 20];
  const bad: Array<[number, Buffer, string]> = [
    [
      10,
      forecastArchive({ base, lead: 10 }, { leads, overrides: { kind: 'observed' } }),
      'not-forecast',
    ],
    [
      20,
      forecastArchive({ base, lead: 20 }, { leads, overrides: { forecast: undefined } }),
      'not-forecast',
    ],
    [30, forecastArchive({ base, lead: 40 }, { leads: [30, 40] }), 'forecast-mismatch'],
    [
      40,
      forecastArchive(
        { base, lead: 40 },
        { leads: [40], overrides: { forecast: { base, lead: 40, valid: base, leads: [40] } } },
      ),
      'forecast-bad-valid',
    ],
    [
      50,
      forecastArchive({ base, lead: 50 }, { leads: [50], validTimeMs: START }),
      'forecast-bad-valid',
    ],
    [60, forecastArchive({ base, lead: 60 }, { leads: [10, 20] }), 'forecast-bad-leads'],
    [70, Buffer.from('not an archive at all, but long enough to hold a header? no'), 'too-small'],
  ];
  for (const [lead, bytes] of bad) await write(forecastFileName({ base, lead }), bytes);
  await write('forecast-junk.pmtiles', buildArchive(base));
  await pass.run();
  await pass.run();
  const byName = new Map(rejected.map(([name, reason]) => [name, reason]));
  expect(rejected).toHaveLength(bad.length + 1);
  for (const [lead, , reason] of bad)
    expect([lead, byName.get(forecastFileName({ base, lead }))]).toEqual([
      lead,
      reason === 'too-small' ? expect.any(String) : reason,
    ]);
  expect(byName.get('forecast-junk.pmtiles')).toBe('bad-name');
  expect(forecasts.current().listed).toEqual([]);
});
