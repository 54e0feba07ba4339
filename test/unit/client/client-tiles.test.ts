/** TileJSON validation and tile paths of the client library. */
import { RadarResponseError } from '../../../src/client/errors';
import { parseTileJson, tileJsonPath, tilePath } from '../../../src/client/tiles';

const good = {
  tilejson: '3.0.0',
  tiles: ['https://r.example/tiles/202611221400/{z}/{x}/{y}.png'],
  minzoom: 0,
  maxzoom: 7,
  bounds: [-125, 24, -66, 50],
  center: [-96, 38, 4],
};

it('accepts the service document and refuses broken ones', () => {
  expect(parseTileJson(good)).toEqual(good);
  for (const broken of [
    null,
    [],
    { ...good, tilejson: 3 },
    { ...good, tiles: [] },
    { ...good, tiles: [1] },
    { ...good, minzoom: 8 },
    { ...good, maxzoom: 'x' },
    { ...good, bounds: [1, 2, 3] },
    { ...good, center: ['a'] },
  ]) {
    expect(() => parseTileJson(broken)).toThrow(RadarResponseError);
  }
});

it('builds paths only from valid timestamps and coordinates', () => {
  expect(tilePath('202611221400', 3, 2, 1)).toBe('/tiles/202611221400/3/2/1.png');
  expect(tileJsonPath('202611221400')).toBe('/tiles/202611221400.json');
  expect(() => tilePath('latest', 0, 0, 0)).toThrow(RangeError);
  expect(() => tilePath('202611221400', 1.5, 0, 0)).toThrow(RangeError);
  expect(() => tilePath('202611221400', 0, -1, 0)).toThrow(RangeError);
});
