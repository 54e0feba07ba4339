import { createSnapshot } from '../../../src/domain/catalog-snapshot';
import { createForecastView } from '../../../src/domain/forecast-catalog';
import { isHealthy } from '../../../src/domain/health';
import { createStatusRenderer, renderStatus } from '../../../src/domain/status-document';

const meta = (timestamp: string) => ({
  timestamp,
  size: 1,
  etag: '"e"',
  lastModified: new Date(0),
});

it('orders newest first and collapses duplicates', () => {
  const snap = createSnapshot(1, [
    meta('202611221400'),
    meta('202611221404'),
    meta('202611221402'),
    meta('202611221404'),
  ]);
  expect(snap.timestamps).toEqual(['202611221404', '202611221402', '202611221400']);
});

it('renders exactly the four public fields with latest = timestamps[0], forecasts [] when none', () => {
  const doc = renderStatus(createSnapshot(1, [meta('202611221400'), meta('202611221402')]), true)!;
  expect(JSON.parse(doc.body.toString())).toEqual({
    healthy: true,
    latest: '202611221402',
    timestamps: ['202611221402', '202611221400'],
    forecasts: [],
  });
  expect(doc.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
});

it('renders nothing for an empty catalog', () => {
  expect(renderStatus(createSnapshot(1, []), true)).toBeUndefined();
});

it('memoises per snapshot and health flag', () => {
  const render = createStatusRenderer();
  const snap = createSnapshot(1, [meta('202611221400')]);
  const a = render(snap, true);
  expect(render(snap, true)).toBe(a);
  const b = render(snap, false);
  expect(b).not.toBe(a);
  expect(b!.etag).not.toBe(a!.etag);
  expect(render(createSnapshot(2, [meta('202611221400')]), false)).not.toBe(b);
});

const forecastView = (
  version: number,
  bases: { base: string; leads: number[]; superseded?: number }[],
) =>
  createForecastView(version, {
    bases: bases.map(({ base, leads, superseded }) => ({
      base,
      leads,
      frames: leads.map((lead) => meta(`forecast-${base}-${String(lead).padStart(3, '0')}`)),
      ...(superseded === undefined ? {} : { supersededAtMs: superseded }),
    })),
  });

it('lists the listed forecast base in lead order, never a superseded one, and never in timestamps', () => {
  const view = forecastView(1, [
    { base: '202611221400', leads: [10, 20, 60] },
    { base: '202611221358', leads: [10], superseded: 5 },
  ]);
  const doc = renderStatus(createSnapshot(1, [meta('202611221400')]), true, view)!;
  expect(JSON.parse(doc.body.toString())).toEqual({
    healthy: true,
    latest: '202611221400',
    timestamps: ['202611221400'],
    forecasts: [
      { base: '202611221400', lead: 10, valid: '202611221410' },
      { base: '202611221400', lead: 20, valid: '202611221420' },
      { base: '202611221400', lead: 60, valid: '202611221500' },
    ],
  });
  expect(view.get('forecast-202611221358-010')).toBeDefined();
  const onlySuperseded = forecastView(2, [{ base: '202611221358', leads: [10], superseded: 5 }]);
  const none = renderStatus(createSnapshot(1, [meta('202611221400')]), true, onlySuperseded)!;
  expect(JSON.parse(none.body.toString()).forecasts).toEqual([]);
});

it('prepares the document once per forecast view too', () => {
  const render = createStatusRenderer();
  const snap = createSnapshot(1, [meta('202611221400')]);
  const view = forecastView(1, [{ base: '202611221400', leads: [10] }]);
  const a = render(snap, true, view);
  expect(render(snap, true, view)).toBe(a);
  const b = render(snap, true, forecastView(2, [{ base: '202611221400', leads: [20] }]));
  expect(b).not.toBe(a);
  expect(b!.etag).not.toBe(a!.etag);
});

describe('isHealthy', () => {
  const now = Date.UTC(2026, 10, 22, 14, 10);
  const base = {
    latest: '202611221400',
    nowMs: now,
    staleAfterS: 600,
    catalogInSync: true,
    storeReachable: true,
  };
  it('is true when fresh, in sync and reachable', () => expect(isHealthy(base)).toBe(true));
  it('is false past the staleness bound', () =>
    expect(isHealthy({ ...base, nowMs: now + 1000 })).toBe(false));
  it('is false when out of sync', () =>
    expect(isHealthy({ ...base, catalogInSync: false })).toBe(false));
  it('is false when the store is unreachable', () =>
    expect(isHealthy({ ...base, storeReachable: false })).toBe(false));
  it('is false with nothing published', () =>
    expect(isHealthy({ ...base, latest: undefined })).toBe(false));
});
