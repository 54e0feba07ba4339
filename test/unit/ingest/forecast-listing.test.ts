/**
 * The forecast listing rule on its own: complete bases only (every lead, all frames naming the
 * same leads), the newest listed, older complete bases readable for the grace from when they
 * were first seen superseded, retention, and which bases' objects may be deleted (never a
 * newer incomplete base, which is still being produced).
 */
import { decideListing, type ValidFrame } from '../../../src/ingest/forecast-listing';

const MIN = 60_000;
const NOW = Date.UTC(2026, 10, 28, 12, 10);
const frame = (base: string, lead: number, leads: number[]): ValidFrame => ({
  id: { base, lead },
  leads,
  meta: {
    timestamp: `forecast-${base}-${String(lead).padStart(3, '0')}`,
    size: 1000,
    etag: '"e"',
    lastModified: new Date(NOW),
  },
});
const cycle = (base: string, leads: number[], present = leads) =>
  present.map((lead) => frame(base, lead, leads));
const decide = (frames: ValidFrame[], superseded = new Map<string, number>(), nowMs = NOW) =>
  decideListing({ frames, superseded, nowMs, graceMs: 10 * MIN, cutoffMs: NOW - 60 * MIN });

it('lists the newest complete base, in lead order, whatever order the frames come in', () => {
  const d = decide([
    ...cycle('202611281208', [10, 20], [20]),
    ...cycle('202611281206', [20, 10]).reverse(),
  ]);
  expect(d.manifest.bases.map((b) => [b.base, b.supersededAtMs])).toEqual([
    ['202611281206', undefined],
  ]);
  expect(d.manifest.bases[0]!.frames.map((f) => f.timestamp)).toEqual([
    'forecast-202611281206-010',
    'forecast-202611281206-020',
  ]);
  expect(d.expired('202611281208')).toBe(false); // newer, still being produced
});

it('a base whose frames disagree on their leads is not complete', () => {
  const d = decide([frame('202611281206', 10, [10, 20]), frame('202611281206', 20, [20])]);
  expect(d.manifest.bases).toEqual([]);
});

it('an older complete base stays readable for the grace, then expires with an older incomplete one', () => {
  const superseded = new Map<string, number>();
  const frames = [
    ...cycle('202611281208', [10]),
    ...cycle('202611281206', [10]),
    ...cycle('202611281204', [10, 20], [10]),
  ];
  const first = decide(frames, superseded);
  expect(first.manifest.bases.map((b) => [b.base, b.supersededAtMs])).toEqual([
    ['202611281208', undefined],
    ['202611281206', NOW],
  ]);
  expect(first.expired('202611281204')).toBe(false);
  const later = decide(frames, superseded, NOW + 10 * MIN);
  expect(later.manifest.bases.map((b) => b.base)).toEqual(['202611281208']);
  expect(later.expired('202611281206')).toBe(true);
  expect(later.expired('202611281204')).toBe(true);
  expect(later.expired('202611281208')).toBe(false);
});

it('a base past retention is neither listed nor kept', () => {
  const d = decide(cycle('202611281009', [10]));
  expect(d.manifest.bases).toEqual([]);
  expect(d.expired('202611281009')).toBe(true);
});
