/**
 * The palette rewrite against pngjs: tiles written by the renderer's encoder, rewritten into
 * every scheme, decode to exactly the scheme's colour for every pixel's index (4-bit tiles with
 * every index, typed 8-bit tiles with every type and step, the shorter palettes the encoder may write, other bit depths); chunks other than
 * PLTE and tRNS come through byte for byte; and PNGs the rewrite must not recolour (not ours,
 * damaged, another palette) are refused with PaletteMismatchError, never recoloured wrongly.
 */
import { deflateSync } from 'node:zlib';
import { PNG } from 'pngjs';
import {
  COLOUR_SCHEMES,
  DEFAULT_SCHEME_ID,
  findScheme,
  schemeRgba,
  storedPalette,
  type Rgba,
} from '../../../src/palette/colour-schemes';
import { createIndexedPngEncoder, type IndexedBitDepth } from '../../../src/palette/indexed-png';
import { pngChunk } from '../../../src/palette/png-chunk-writer';
import { createPaletteRewrite, PaletteMismatchError } from '../../../src/palette/scheme-rewrite';
import { EMPTY_TILE_PNG } from '../../../src/tiles/empty-tile';

/** The stored palette: untyped tiles hold its first 16 entries, typed ones all 48. */
const NWS = storedPalette();
/** The palette of tiles written without type (and typed tiles with rain alone). */
const UNTYPED = NWS.slice(0, 16);

/** A `size`² image whose pixel (x, y) has index (x + 3y) mod `colours`, as PNG scanlines. */
function pattern(size: number, bitDepth: IndexedBitDepth, colours: number) {
  const rowBytes = 1 + Math.ceil((size * bitDepth) / 8);
  const scanlines = new Uint8Array(rowBytes * size);
  const indices: number[] = [];
  const perByte = 8 / bitDepth;
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const index = (x + 3 * y) % colours;
      indices.push(index);
      const shift = 8 - bitDepth * ((x % perByte) + 1);
      scanlines[y * rowBytes + 1 + Math.floor(x / perByte)]! |= index << shift;
    }
  return { scanlines, indices };
}

/** Every pixel of `png` decoded by pngjs has the colour `palette` gives its index. */
function expectColours(png: Uint8Array, indices: number[], palette: readonly Rgba[]): void {
  const decoded = PNG.sync.read(Buffer.from(png));
  const wrong: string[] = [];
  indices.forEach((index, i) => {
    const got = [...decoded.data.subarray(i * 4, i * 4 + 4)];
    // pngjs reports a transparent entry's colour channels as they are in PLTE.
    if (got.join() !== palette[index]!.join())
      wrong.push(`pixel ${i}: ${got} not ${palette[index]}`);
  });
  expect(wrong.slice(0, 5)).toEqual([]);
}

const chunkTypes = (png: Uint8Array): string[] => {
  const types: string[] = [];
  for (let pos = 8; pos < png.length;) {
    const length = Buffer.from(png).readUInt32BE(pos);
    types.push(Buffer.from(png.subarray(pos + 4, pos + 8)).toString('latin1'));
    pos += 12 + length;
  }
  return types;
};

describe('the palette rewrite', () => {
  const tile = pattern(256, 4, 16);
  const tilePng = createIndexedPngEncoder(UNTYPED).encode(256, 256, 4, tile.scanlines);

  it.each(COLOUR_SCHEMES.map((s) => [s.id, s] as const))(
    'recolours a renderer tile into %s: every pixel of every index',
    (_id, scheme) => {
      const target = schemeRgba(scheme);
      const out = createPaletteRewrite(NWS, target)(tilePng);
      expectColours(out, tile.indices, target);
      // Same compressed pixels, same other chunks: only PLTE (and tRNS) differ.
      expect(chunkTypes(out)).toEqual(['IHDR', 'PLTE', 'tRNS', 'IDAT', 'IEND']);
      const idat = (png: Uint8Array) => Buffer.from(png).subarray(Buffer.from(png).indexOf('IDAT'));
      expect(idat(out).equals(idat(tilePng))).toBe(true);
    },
  );

  it('leaves a tile unchanged when the target is the palette it holds', () => {
    const out = createPaletteRewrite(NWS, schemeRgba(findScheme(DEFAULT_SCHEME_ID)!))(tilePng);
    expect(Buffer.from(out).equals(tilePng)).toBe(true);
  });

  it.each([1, 2, 8] as const)('handles %i-bit tiles with shorter palettes', (bitDepth) => {
    const colours = Math.min(16, 2 ** bitDepth);
    const image = pattern(37, bitDepth, colours);
    const png = createIndexedPngEncoder(NWS.slice(0, colours)).encode(
      37,
      37,
      bitDepth,
      image.scanlines,
    );
    const target = schemeRgba(findScheme('cividis')!);
    expectColours(createPaletteRewrite(NWS, target)(png), image.indices, target);
  });

  it('keeps the shared transparent tile transparent in every scheme', () => {
    for (const scheme of COLOUR_SCHEMES) {
      const out = createPaletteRewrite(NWS, schemeRgba(scheme))(EMPTY_TILE_PNG);
      const decoded = PNG.sync.read(Buffer.from(out));
      expect([decoded.width, decoded.height]).toEqual([256, 256]);
      expect(decoded.data.every((v, i) => i % 4 !== 3 || v === 0)).toBe(true);
    }
  });

  it('writes tRNS for translucent target entries, and none when all are opaque', () => {
    const translucent: Rgba[] = NWS.map(([r, g, b], i) => [r, g, b, i === 0 ? 0 : 128]);
    const out = createPaletteRewrite(NWS, translucent)(tilePng);
    expectColours(out, tile.indices, translucent);
    const opaque: Rgba[] = NWS.map(([r, g, b]) => [r, g, b, 255]);
    const noTrns = createPaletteRewrite(NWS, opaque)(tilePng);
    expect(chunkTypes(noTrns)).toEqual(['IHDR', 'PLTE', 'IDAT', 'IEND']);
    expectColours(noTrns, tile.indices, opaque);
  });

  it('copies ancillary chunks and inserts tRNS right after PLTE', () => {
    // Our tile with a tEXt chunk between PLTE and tRNS.
    const text = pngChunk('tEXt', new Uint8Array(Buffer.from('Comment\0hello')));
    const plteEnd = tilePng.indexOf('tRNS') - 4;
    const withText = Buffer.concat([tilePng.subarray(0, plteEnd), text, tilePng.subarray(plteEnd)]);
    const target = schemeRgba(findScheme('grey-dbz')!);
    const out = createPaletteRewrite(NWS, target)(withText);
    expect(chunkTypes(out)).toEqual(['IHDR', 'PLTE', 'tRNS', 'tEXt', 'IDAT', 'IEND']);
    expect(Buffer.from(out).includes(Buffer.from(text))).toBe(true);
    expectColours(out, tile.indices, target);
  });

  it.each(COLOUR_SCHEMES.map((s) => [s.id, s] as const))(
    'recolours a typed 8-bit tile into %s: rain, snow and hail at every step',
    (_id, scheme) => {
      const typed = pattern(256, 8, 48);
      const png = createIndexedPngEncoder(NWS).encode(256, 256, 8, typed.scanlines);
      const target = schemeRgba(scheme);
      expectColours(createPaletteRewrite(NWS, target)(png), typed.indices, target);
    },
  );

  it('returns what `alloc` makes (a Buffer on the server)', () => {
    const out = createPaletteRewrite(
      NWS,
      schemeRgba(COLOUR_SCHEMES[1]!),
      Buffer.allocUnsafe,
    )(tilePng);
    expect(Buffer.isBuffer(out)).toBe(true);
  });
});

describe('PNGs the rewrite refuses', () => {
  const rewrite = createPaletteRewrite(NWS, schemeRgba(findScheme('cividis')!));
  const tilePng = createIndexedPngEncoder(UNTYPED).encode(16, 16, 4, pattern(16, 4, 16).scanlines);
  const replaceChunk = (png: Buffer, type: string, data: Uint8Array) => {
    const at = png.indexOf(type) - 4;
    const end = at + 12 + png.readUInt32BE(at);
    return Buffer.concat([png.subarray(0, at), pngChunk(type, data), png.subarray(end)]);
  };
  const rgba = new PNG({ width: 4, height: 4 });
  rgba.data.fill(200);
  const truecolour = PNG.sync.write(rgba);
  const otherPalette = createIndexedPngEncoder(
    UNTYPED.map(([r, g, b, a]) => [255 - r, g, b, a] as const),
  ).encode(16, 16, 4, pattern(16, 4, 16).scanlines);
  const plteAt = tilePng.indexOf('PLTE') - 4;

  it.each([
    ['bytes that are not a PNG', Buffer.from('not a png at all, not even close to one')],
    ['an empty body', Buffer.alloc(0)],
    ['an RGBA PNG (colour type 6)', truecolour],
    ['a palette PNG in another palette', otherPalette],
    ['a palette of 17 entries', replaceChunk(tilePng, 'PLTE', new Uint8Array(17 * 3))],
    ['a PLTE that is not whole entries', replaceChunk(tilePng, 'PLTE', new Uint8Array(47))],
    ['index 0 made opaque', replaceChunk(tilePng, 'tRNS', new Uint8Array([255]))],
    [
      'no tRNS (index 0 opaque)',
      Buffer.concat([
        tilePng.subarray(0, tilePng.indexOf('tRNS') - 4),
        tilePng.subarray(tilePng.indexOf('IDAT') - 4),
      ]),
    ],
    ['truncated in IDAT', tilePng.subarray(0, tilePng.length - 20)],
    ['bytes after IEND', Buffer.concat([tilePng, Buffer.from([0])])],
    [
      'a chunk length past the end',
      Buffer.concat([
        tilePng.subarray(0, plteAt),
        Buffer.from([0x7f, 0, 0, 0]),
        tilePng.subarray(plteAt + 4),
      ]),
    ],
    [
      'no IDAT',
      Buffer.concat([tilePng.subarray(0, tilePng.indexOf('IDAT') - 4), tilePng.subarray(-12)]),
    ],
    [
      'PLTE repeated',
      Buffer.concat([
        tilePng.subarray(0, plteAt),
        tilePng.subarray(plteAt, plteAt + 60),
        tilePng.subarray(plteAt),
      ]),
    ],
  ])('refuses %s', (_label, png) => {
    expect(() => rewrite(png)).toThrow(PaletteMismatchError);
  });

  it('refuses a 2-bit tile whose PLTE holds more entries than 2 bits address', () => {
    const twoBit = createIndexedPngEncoder(NWS.slice(0, 4)).encode(
      8,
      8,
      2,
      pattern(8, 2, 4).scanlines,
    );
    const data = new Uint8Array(NWS.slice(0, 5).flatMap(([r, g, b]) => [r, g, b]));
    expect(() => rewrite(replaceChunk(twoBit, 'PLTE', data))).toThrow(PaletteMismatchError);
  });

  it('a deflate stream it never reads: a tile whose IDAT is not even zlib is still recoloured', () => {
    // The rewrite does not inflate IDAT (it is copied), so its cost does not depend on it.
    const odd = replaceChunk(tilePng, 'IDAT', deflateSync(Buffer.alloc(10)).subarray(0, 5));
    expect(() => rewrite(odd)).not.toThrow();
  });
});
