import { evaluatePreconditions, ifRangeAllows } from '../../../../src/http/core/conditional';

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

describe('date conditions that are not HTTP-dates are ignored', () => {
  const asctime = 'Sun Nov 22 14:00:00 2026';
  it.each([
    [{ 'if-modified-since': '2099' }, 'proceed'],
    [{ 'if-modified-since': '2026-11-23T07:06:21Z' }, 'proceed'],
    [{ 'if-modified-since': 'Tue, 01 Jan 2999 00:00:00 UTC' }, 'proceed'],
    [{ 'if-unmodified-since': '2000' }, 'proceed'],
    [{ 'if-unmodified-since': '2000-01-01T00:00:00Z' }, 'proceed'],
    [{ 'if-modified-since': asctime }, 'not-modified'],
    [{ 'if-modified-since': 'Sunday, 22-Nov-26 14:00:00 GMT' }, 'not-modified'],
    [{ 'if-unmodified-since': asctime }, 'proceed'],
    [{ 'if-unmodified-since': 'Sun Nov 22 13:59:59 2026' }, 'precondition-failed'],
  ])('%j -> %s', (headers, outcome) => {
    expect(evaluatePreconditions(headers, current)).toBe(outcome);
  });

  it('If-Range with a value that is no HTTP-date is false: the whole archive', () => {
    expect(ifRangeAllows({ 'if-range': '2026-11-22T14:00:00Z' }, current)).toBe(false);
    expect(ifRangeAllows({ 'if-range': '2026' }, current)).toBe(false);
    expect(ifRangeAllows({ 'if-range': asctime }, current)).toBe(true);
  });
});
