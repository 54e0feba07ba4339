import { evaluatePreconditions, ifRangeAllows } from '../../../src/http/conditional';

const current = { etag: '"abc"', lastModified: new Date('2026-11-22T14:00:00Z') };
const lm = current.lastModified.toUTCString();

it.each([
  [{}, 'proceed'],
  [{ 'if-none-match': '"abc"' }, 'not-modified'],
  [{ 'if-none-match': 'W/"abc"' }, 'not-modified'],
  [{ 'if-none-match': '"x", "abc"' }, 'not-modified'],
  [{ 'if-none-match': '*' }, 'not-modified'],
  [{ 'if-none-match': '"x"' }, 'proceed'],
  [{ 'if-match': '"abc"' }, 'proceed'],
  [{ 'if-match': '*' }, 'proceed'],
  [{ 'if-match': '"x"' }, 'precondition-failed'],
  [{ 'if-match': 'W/"abc"' }, 'precondition-failed'],
  [{ 'if-match': '"x"', 'if-none-match': '"abc"' }, 'precondition-failed'],
  [{ 'if-modified-since': lm }, 'not-modified'],
  [{ 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' }, 'proceed'],
  [{ 'if-modified-since': 'garbage' }, 'proceed'],
  [{ 'if-none-match': '"x"', 'if-modified-since': lm }, 'proceed'],
  [{ 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' }, 'precondition-failed'],
])('%j -> %s', (headers, outcome) => {
  expect(evaluatePreconditions(headers, current)).toBe(outcome);
});

it('If-Range: strong ETag or exact date only', () => {
  expect(ifRangeAllows({}, current)).toBe(true);
  expect(ifRangeAllows({ 'if-range': '"abc"' }, current)).toBe(true);
  expect(ifRangeAllows({ 'if-range': 'W/"abc"' }, current)).toBe(false);
  expect(ifRangeAllows({ 'if-range': '"x"' }, current)).toBe(false);
  expect(ifRangeAllows({ 'if-range': lm }, current)).toBe(true);
  expect(ifRangeAllows({ 'if-range': 'Sat, 21 Nov 2026 14:00:00 GMT' }, current)).toBe(false);
});
