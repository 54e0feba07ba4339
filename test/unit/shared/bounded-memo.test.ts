import { boundedMemo } from '../../../src/shared/bounded-memo';

it('computes a key once and answers repeats from memory', () => {
  const memo = boundedMemo<number>(10);
  let computed = 0;
  const value = (key: string) => memo.get(key, () => ++computed);
  expect([value('a'), value('a'), value('b'), value('a')]).toEqual([1, 1, 2, 1]);
  expect(computed).toBe(2);
});

it('never holds more than its limit: full, it starts over', () => {
  const memo = boundedMemo<string>(3);
  let computed = 0;
  for (const key of ['a', 'b', 'c', 'd']) memo.get(key, () => `${key}${++computed}`);
  expect(computed).toBe(4);
  // 'd' cleared the first three: 'a' is computed again, 'd' is still kept.
  expect(memo.get('d', () => 'again')).toBe('d4');
  expect(memo.get('a', () => 'again')).toBe('again');
});
