/**
 * The producer's cycle bookkeeping: it keeps the echo images of one baseline and the newest
 * frame's payload only, runs the newest base's cycle as soon as the frame one baseline before
 * it is there (also when a newest-first backfill brings it later), and settles every other
 * base once with its reason: superseded (an older frame, or a newer one came first), a gap
 * (missing-earlier-frame), or another grid (grid-mismatch).
 */
import { createCycleBook, type ObservedFrame } from '../../../src/nowcast/cycle-book';
import type { EchoImage } from '../../../src/nowcast/echo-image';

const MIN = 60_000;
const BASELINE = 10 * MIN;
const T0 = Date.UTC(2026, 10, 28, 12, 0);
const at = (minutes: number) => T0 + minutes * MIN;
const image = (tag: number): EchoImage => ({
  width: 1,
  height: 1,
  factor: 4,
  pixels: Uint8Array.of(tag),
});
const frame = (minutes: number, identity = 'grid A'): ObservedFrame<string> => ({
  timeMs: at(minutes),
  identity,
  image: image(minutes),
  full: `full ${minutes}`,
});

it('runs the cycle of a new base whose frame one baseline before it is kept', () => {
  const book = createCycleBook<string>(BASELINE);
  for (const m of [0, 2, 4, 6, 8]) expect(book.observe(frame(m)).run).toBeUndefined();
  const observation = book.observe(frame(10));
  // The frame before it had no frame 10 minutes before it, but none that old was ever seen
  // (the sequence starts at 0): no gap, the newer base took its place.
  expect(observation.skipped).toEqual([
    expect.objectContaining({ baseMs: at(8), reason: 'superseded' }),
  ]);
  expect(observation.run).toEqual({
    baseMs: at(10),
    full: 'full 10',
    earlier: image(0),
    latest: image(10),
  });
  expect(book.isRunning(at(10))).toBe(true);
  expect(book.holdsPayload()).toBe(true);
  book.finished(at(10));
  expect(book.isRunning(at(10))).toBe(false);
  // Its grid is needed no more: between cycles only the echo images stay.
  expect(book.holdsPayload()).toBe(false);
});

it('keeps the echo images of one baseline and the payload of the newest frame alone, until its cycle ran', () => {
  const book = createCycleBook<string>(BASELINE);
  for (let m = 0; m <= 40; m += 2) {
    const run = book.observe(frame(m)).run;
    if (run) book.finished(run.baseMs);
    expect(book.kept().length).toBeLessThanOrEqual(6);
  }
  expect(book.kept()).toEqual([30, 32, 34, 36, 38, 40].map(at));
  expect(book.newest()).toBe(at(40));
  // A frame older than the baseline is settled without being read.
  expect(book.needs(at(28))).toBe(false);
  expect(book.needs(at(30))).toBe(true);
  expect(book.needs(at(42))).toBe(true);
});

it('a newest-first backfill: the base waits for its earlier frame, the older frames are superseded', () => {
  const book = createCycleBook<string>(BASELINE);
  expect(book.observe(frame(20))).toEqual({ skipped: [] });
  expect(book.holdsPayload()).toBe(true); // waiting for its earlier frame
  for (const m of [18, 16, 14, 12]) {
    const observation = book.observe(frame(m));
    expect(observation.run).toBeUndefined();
    expect(observation.skipped).toEqual([
      expect.objectContaining({ baseMs: at(m), reason: 'superseded' }),
    ]);
  }
  const observation = book.observe(frame(10));
  expect(observation.run).toMatchObject({ baseMs: at(20), full: 'full 20', earlier: image(10) });
  expect(observation.skipped).toEqual([
    expect.objectContaining({ baseMs: at(10), reason: 'superseded' }),
  ]);
  // Older still: not read, settled at once.
  expect(book.needs(at(8))).toBe(false);
  expect(book.observe({ timeMs: at(8), identity: '' })).toEqual({
    skipped: [
      {
        baseMs: at(8),
        reason: 'superseded',
        detail: 'the newer frame of 2026-11-28T12:20:00.000Z was observed first',
      },
    ],
  });
});

it('a gap: the base whose earlier frame never came is settled as missing-earlier-frame when a newer frame comes', () => {
  const book = createCycleBook<string>(BASELINE);
  for (const m of [0, 2, 4, 6]) book.observe(frame(m)); // 8 is missing
  expect(book.observe(frame(10)).run).toBeDefined();
  book.finished(at(10));
  expect(book.observe(frame(12)).run).toBeDefined();
  book.finished(at(12));
  expect(book.observe(frame(14)).run).toBeDefined();
  book.finished(at(14));
  expect(book.observe(frame(16)).run).toBeDefined();
  book.finished(at(16));
  expect(book.observe(frame(18))).toEqual({ skipped: [] }); // waits for 8, which never comes
  expect(book.observe(frame(20))).toEqual({
    skipped: [
      {
        baseMs: at(18),
        reason: 'missing-earlier-frame',
        detail: 'no frame at 2026-11-28T12:08:00.000Z, 10 min before the base',
      },
    ],
    run: expect.objectContaining({ baseMs: at(20) }),
  });
});

it('a start converting two frames at once (the older one first) is no gap', () => {
  const book = createCycleBook<string>(BASELINE);
  book.observe(frame(18)); // waits for 8, which the backfill brings later
  expect(book.observe(frame(20)).skipped).toEqual([
    {
      baseMs: at(18),
      reason: 'superseded',
      detail:
        'no frame at 2026-11-28T12:08:00.000Z, 10 min before the base yet (the first frames seen), and the newer frame of 2026-11-28T12:20:00.000Z came',
    },
  ]);
  for (const m of [16, 14, 12]) book.observe(frame(m));
  expect(book.observe(frame(10)).run).toMatchObject({ baseMs: at(20) });
});

it('frames of another grid or product are never paired: grid-mismatch', () => {
  const book = createCycleBook<string>(BASELINE);
  book.observe(frame(0, 'grid A'));
  const observation = book.observe(frame(10, 'grid B'));
  expect(observation.run).toBeUndefined();
  expect(observation.skipped).toEqual([
    expect.objectContaining({ baseMs: at(0), reason: 'superseded' }),
    {
      baseMs: at(10),
      reason: 'grid-mismatch',
      detail: 'the frame at 2026-11-28T12:00:00.000Z is grid A, the base grid B',
    },
  ]);
  // Settled once: the next base is not charged with it again.
  expect(book.observe(frame(12, 'grid B')).skipped).toEqual([]);
});

it('a newer frame during a cycle: the caller abandons it, and the new base is not held back', () => {
  const book = createCycleBook<string>(BASELINE);
  for (const m of [0, 2, 10]) book.observe(frame(m));
  expect(book.isRunning(at(10))).toBe(true);
  book.finished(at(10)); // abandoned (superseded) by the caller
  const observation = book.observe(frame(12));
  expect(observation.skipped).toEqual([]);
  expect(observation.run).toMatchObject({ baseMs: at(12), earlier: image(2) });
});

it('a frame seen twice is observed once', () => {
  const book = createCycleBook<string>(BASELINE);
  book.observe(frame(0));
  expect(book.observe(frame(0))).toEqual({ skipped: [] });
});

it('remembers frames published before it began as earlier frames, never as bases, in either order', () => {
  const remembered = (m: number) => ({ timeMs: at(m), identity: 'grid A', image: image(m) });
  // Recalled first (a restart), then the first new frame: its cycle runs at once.
  const book = createCycleBook<string>(BASELINE);
  for (const m of [2, 4, 6, 8, 10]) expect(book.remember(remembered(m))).toEqual({ skipped: [] });
  expect(book.newest()).toBeUndefined(); // no base of its own
  expect(book.observe(frame(12))).toEqual({
    skipped: [],
    run: { baseMs: at(12), full: 'full 12', earlier: image(2), latest: image(12) },
  });
  expect(book.kept()).toEqual([2, 4, 6, 8, 10, 12].map(at));

  // The new frame first, its earlier frame recalled later: the waiting base runs then.
  const later = createCycleBook<string>(BASELINE);
  expect(later.observe(frame(12)).run).toBeUndefined();
  expect(later.remember(remembered(4))).toEqual({ skipped: [] });
  expect(later.remember(remembered(0))).toEqual({ skipped: [] }); // older than needed: dropped
  expect(later.remember(remembered(2)).run).toEqual(
    expect.objectContaining({ baseMs: at(12), earlier: image(2) }),
  );
  expect(later.kept()).toEqual([2, 4, 12].map(at));
});
