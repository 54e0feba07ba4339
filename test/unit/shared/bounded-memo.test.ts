import { boundedMemo } from '../../../src/shared/bounded-memo';

it('computes a key once and answers repeats from memory', () => {
  const memo = boundedMemo<number>({ maxEntries: 10, maxKeyLength: 10 });
  let computed = 0;
  const value = (key: string) => memo.get(key, () => ++computed);
  expect([value('a'), value('a'), value('b'), value('a')]).toEqual([1, 1, 2, 1]);
  expect(computed).toBe(2);
  expect(memo.size()).toEqual({ entries: 2, keyChars: 2 });
});

it('never holds more than its limit: full, it starts over', () => {
  const memo = boundedMemo<string>({ maxEntries: 3, maxKeyLength: 10 });
  let computed = 0;
  for (const key of ['a', 'b', 'c', 'd']) memo.get(key, () => `${key}${++computed}`);
  expect(computed).toBe(4);
  // 'd' cleared the first three: 'a' is computed again, 'd' is still kept.
  expect(memo.get('d', () => 'again')).toBe('d4');
  expect(memo.get('a', () => 'again')).toBe('again');
  expect(memo.size()).toEqual({ entries: 2, keyChars: 2 });
});

it('is bounded in characters: a key longer than the limit is computed every time, never kept', () => {
  const memo = boundedMemo<number>({ maxEntries: 1000, maxKeyLength: 8 });
  let computed = 0;
  for (let i = 0; i < 100; i++) memo.get(`${i}`.padStart(9, 'x'), () => ++computed);
  memo.get('x'.repeat(9), () => ++computed);
  memo.get('x'.repeat(9), () => ++computed);
  expect(computed).toBe(102);
  expect(memo.size()).toEqual({ entries: 0, keyChars: 0 });
  memo.get('x'.repeat(8), () => ++computed);
  expect(memo.size()).toEqual({ entries: 1, keyChars: 8 });
  // Whatever is sent, what it holds stays within maxEntries × maxKeyLength characters.
  for (let i = 0; i < 5000; i++) memo.get(`${i}`.padStart(8, 'y'), () => i);
  expect(memo.size().keyChars).toBeLessThanOrEqual(1000 * 8);
});

it('keeps only what `keep` accepts', () => {
  const memo = boundedMemo<number>({ maxEntries: 10, maxKeyLength: 10, keep: (v) => v > 0 });
  let computed = 0;
  memo.get('neg', () => (++computed, -1));
  memo.get('neg', () => (++computed, -1));
  memo.get('pos', () => (++computed, 1));
  memo.get('pos', () => (++computed, 1));
  expect(computed).toBe(3);
  expect(memo.size()).toEqual({ entries: 1, keyChars: 3 });
});
