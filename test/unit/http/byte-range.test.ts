import { selectRange } from '../../../src/http/byte-range';

it.each([
  [undefined, { kind: 'whole' }],
  ['bytes=0-9', { kind: 'partial', window: { offset: 0, length: 10 }, end: 9 }],
  ['bytes=90-', { kind: 'partial', window: { offset: 90, length: 10 }, end: 99 }],
  ['bytes=-10', { kind: 'partial', window: { offset: 90, length: 10 }, end: 99 }],
  ['bytes=-1000', { kind: 'partial', window: { offset: 0, length: 100 }, end: 99 }],
  ['bytes=50-5000', { kind: 'partial', window: { offset: 50, length: 50 }, end: 99 }],
  ['bytes=100-', { kind: 'unsatisfiable' }],
  ['bytes=-0', { kind: 'unsatisfiable' }],
  ['bytes=99999999999999999999-', { kind: 'unsatisfiable' }],
  ['bytes=0-1,3-4', { kind: 'whole' }],
  ['pages=0-1', { kind: 'whole' }],
  ['bytes=x-y', { kind: 'whole' }],
  ['nonsense', { kind: 'whole' }],
])('%s on 100 bytes', (header, expected) => {
  expect(selectRange(header, 100)).toEqual(expected);
});
