import { parseBearer } from '../../../../src/http/core/credentials';

it.each([
  ['Bearer abc', 'abc'],
  ['bearer abc', 'abc'],
  ['BEARER   a.b-c_d~e+f/g==', 'a.b-c_d~e+f/g=='],
  ['Bearer abc ', 'abc'],
])('%j -> %j', (value, token) => expect(parseBearer(value)).toBe(token));

it.each([
  undefined,
  '',
  'abc',
  'Bearer',
  'Bearer ',
  'Bearer a b',
  'Basic abc',
  'Bearer\tabc',
  'Bearer a,b',
  'Bearer ä',
  ['Bearer a'],
])('rejects %j', (value) => expect(parseBearer(value as string | undefined)).toBeUndefined());
