/**
 * The client's legend: the service's document passes validation, malformed ones are refused
 * with RadarResponseError, and the palette swap built from the legend's colours gives exactly
 * the bytes the service's z/x/y scheme route sends for the same stored tile.
 */
import { RadarResponseError } from '../../../src/client/errors';
import { legendPalette, parseLegend, schemeRewrite } from '../../../src/client/legend';
import { COLOUR_SCHEMES } from '../../../src/palette/colour-schemes';
import { buildLegend } from '../../../src/tiles/legend-document';
import { createTileSchemes } from '../../../src/tiles/tile-schemes';
import { PNG } from 'pngjs';
import { createIndexedPngEncoder } from '../../../src/palette/indexed-png';
import { paletteTile } from '../../fixtures/palette-tiles';

const legend = () => JSON.parse(JSON.stringify(buildLegend())) as Record<string, unknown>;

it('accepts the service legend', () => {
  const parsed = parseLegend(legend());
  expect(parsed.schemes.map((s) => s.id)).toEqual(COLOUR_SCHEMES.map((s) => s.id));
  expect(legendPalette(parsed, parsed.schemes[0]!)).toHaveLength(48);
});

it.each([
  ['not an object', () => []],
  ['no schemes', () => ({ ...legend(), schemes: [] })],
  ['an unknown default', () => ({ ...legend(), default: 'none' })],
  ['no transparent entry', () => ({ ...legend(), transparent: undefined })],
  [
    'a step out of order',
    () => {
      const doc = legend() as { schemes: Array<{ steps: Array<{ index: number }> }> };
      doc.schemes[1]!.steps[3]!.index = 9;
      return doc;
    },
  ],
  [
    'a colour channel out of range',
    () => {
      const doc = legend() as { schemes: Array<{ steps: Array<{ rgba: number[] }> }> };
      doc.schemes[2]!.steps[0]!.rgba = [0, 0, 300, 255];
      return doc;
    },
  ],
  [
    'schemes with different steps',
    () => {
      const doc = legend() as { schemes: Array<{ steps: unknown[] }> };
      doc.schemes[1]!.steps.pop();
      return doc;
    },
  ],
])('refuses a legend with %s', (_label, make) => {
  expect(() => parseLegend(make())).toThrow(RadarResponseError);
});

it('recolours a stored tile to the same bytes as the service scheme route', () => {
  const parsed = parseLegend(legend());
  const server = createTileSchemes();
  const tile = paletteTile(2);
  expect(schemeRewrite(parsed, parsed.default)).toBeUndefined();
  for (const scheme of parsed.schemes.filter((s) => s.id !== parsed.default)) {
    const inBrowser = schemeRewrite(parsed, scheme.id)!(tile);
    expect(Buffer.from(inBrowser).equals(server.get(scheme.id)!.recolour(tile))).toBe(true);
  }
  expect(() => schemeRewrite(parsed, 'rainbow')).toThrow(RangeError);
});

it('type colours off: snow and hail show in the rain colour of their step, in every scheme', () => {
  const parsed = parseLegend(legend());
  for (const scheme of parsed.schemes) {
    const target = legendPalette(parsed, scheme);
    const rewrite = schemeRewrite(parsed, scheme.id, false)!;
    // A typed 8-bit tile holding every index once; decoded through the rewritten palette.
    const stored = legendPalette(parsed, parsed.schemes[0]!);
    const png = createIndexedPngEncoder(stored).encode(
      48,
      1,
      8,
      Uint8Array.from([0, ...Array.from({ length: 48 }, (_, i) => i)]),
    );
    const decoded = PNG.sync.read(Buffer.from(rewrite(png)));
    for (let index = 1; index < 48; index++) {
      if (index % 16 === 0) continue;
      const rain = target[index % 16]!;
      expect([scheme.id, index, [...decoded.data.subarray(4 * index, 4 * index + 4)]]).toEqual([
        scheme.id,
        index,
        [...rain],
      ]);
    }
  }
  expect(schemeRewrite(parsed, 'nws', true)).toBeUndefined();
});
