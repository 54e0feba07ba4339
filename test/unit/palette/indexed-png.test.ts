import { PNG } from 'pngjs';
import { createIndexedPngEncoder } from '../../../src/palette/indexed-png';

const palette: Array<[number, number, number, number]> = [
  [0, 0, 0, 0],
  [255, 0, 0, 255],
  [0, 255, 0, 255],
  [0, 0, 255, 128],
];

/** Packs one index per pixel into PNG scanlines with filter type 0. */
function scanlines(indices: number[][], bitDepth: number): Uint8Array {
  const width = indices[0]!.length;
  const rowBytes = 1 + Math.ceil((width * bitDepth) / 8);
  const out = new Uint8Array(rowBytes * indices.length);
  const perByte = 8 / bitDepth;
  indices.forEach((row, y) => {
    row.forEach((index, x) => {
      const shift = 8 - bitDepth * ((x % perByte) + 1);
      out[y * rowBytes + 1 + Math.floor(x / perByte)]! |= index << shift;
    });
  });
  return out;
}

describe('indexed PNG encoder', () => {
  const image = [
    [0, 1, 2, 3, 1],
    [3, 2, 1, 0, 0],
    [1, 1, 1, 1, 2],
  ];

  it.each([2, 4, 8] as const)(
    'writes %i-bit palette PNGs that pngjs decodes exactly',
    (bitDepth) => {
      const png = createIndexedPngEncoder(palette).encode(
        5,
        3,
        bitDepth,
        scanlines(image, bitDepth),
      );
      const decoded = PNG.sync.read(png);
      expect([decoded.width, decoded.height]).toEqual([5, 3]);
      image.forEach((row, y) =>
        row.forEach((index, x) => {
          const o = (y * 5 + x) * 4;
          expect([...decoded.data.subarray(o, o + 4)]).toEqual(palette[index]);
        }),
      );
    },
  );

  it('declares colour type 3 with PLTE and tRNS chunks', () => {
    const png = createIndexedPngEncoder(palette).encode(5, 3, 4, scanlines(image, 4));
    expect(png[25]).toBe(3); // IHDR colour type
    expect(png[24]).toBe(4); // IHDR bit depth
    expect(png.includes(Buffer.from('PLTE'))).toBe(true);
    expect(png.includes(Buffer.from('tRNS'))).toBe(true);
  });

  it('rejects scanlines of the wrong size and palettes that do not fit', () => {
    const encoder = createIndexedPngEncoder(palette);
    expect(() => encoder.encode(5, 3, 4, new Uint8Array(5))).toThrow(RangeError);
    expect(() => encoder.encode(5, 3, 1, scanlines(image, 1))).toThrow(RangeError);
    expect(() => createIndexedPngEncoder([])).toThrow(RangeError);
  });
});
