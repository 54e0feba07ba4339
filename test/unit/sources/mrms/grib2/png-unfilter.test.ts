/**
 * The PNG Paeth filter's ties, which random images almost never hit: hand-built rows for each
 * kind of tie, then every byte context (left, up, up-left) in which two of the three distances
 * are equal, in PNGs that pngjs encodes with Paeth forced on every row, at every pixel shape
 * the decoder supports (grey 8 and 16 bits, RGB and RGBA 8 bits). The PNG specification breaks
 * ties in the order left, up, up-left; a decoder that breaks one differently decodes wrong
 * samples without an error.
 */
import { inflateSync } from 'node:zlib';
import { failFor } from '../../../../../src/sources/mrms/grib2/grib2-error';
import { decodePngSamples } from '../../../../../src/sources/mrms/grib2/png-samples';
import { unfilterScanlines } from '../../../../../src/sources/mrms/grib2/png-unfilter';
import { gribPng } from '../../../../fixtures/grib2-encoder';
import { pngjsSamples } from '../../../../fixtures/pngjs-samples';

const fail = failFor('f.grib2');

/**
 * Two rows of two 8-bit pixels, unfiltered: row 0 (filter None) is [upLeft, up], row 1 (filter
 * Paeth) is [left, target]. Pixel 0 of row 1 has left = up-left = 0 and up = `upLeft`, so its
 * predictor is `upLeft`; pixel 1's predictor is `expected`, named by the case.
 */
function paethRows(left: number, up: number, upLeft: number, target: number, expected: number) {
  const raw = Uint8Array.from([
    0,
    upLeft,
    up,
    4,
    (left - upLeft) & 0xff,
    (target - expected) & 0xff,
  ]);
  return Array.from(unfilterScanlines(raw, 2, 2, 1, fail));
}

describe('Paeth ties, rows built by hand', () => {
  // p = left + up - upLeft; pa = |p - left|, pb = |p - up|, pc = |p - upLeft|.
  it('pb == pc < pa: up wins over up-left', () => {
    // p = 90: pa = 20, pb = 10, pc = 10.
    expect(paethRows(110, 80, 100, 33, 80)).toEqual([100, 80, 110, 33]);
  });

  it('pa == pc < pb: left wins over up-left', () => {
    // p = 90: pa = 10, pb = 20, pc = 10.
    expect(paethRows(80, 110, 100, 33, 80)).toEqual([100, 110, 80, 33]);
  });

  it('pa == pb <= pc: left wins (with byte samples such a tie means left == up)', () => {
    // p = 90: pa = 40, pb = 40, pc = 80. |up - upLeft| == |left - upLeft| with left != up
    // would put p on upLeft (pc = 0 < pa), so the tie always has left == up.
    expect(paethRows(50, 50, 10, 33, 50)).toEqual([10, 50, 50, 33]);
  });

  it('pa == pb == pc: left, up and up-left all equal', () => {
    expect(paethRows(77, 77, 77, 200, 77)).toEqual([77, 77, 77, 200]);
  });

  it('p outside 0..255 (the sum wraps only after the predictor is chosen)', () => {
    // p = 255 + 200 - 0 = 455: pa = 200, pb = 255, pc = 455 -> left.
    expect(paethRows(255, 200, 0, 1, 255)).toEqual([0, 200, 255, 1]);
    // p = 0 + 0 - 200 = -200: pa = 200, pb = 200, pc = 400 -> left (== up).
    expect(paethRows(0, 0, 200, 7, 0)).toEqual([200, 0, 0, 7]);
  });
});

/**
 * Every (left, up, upLeft) byte triple in which two of pa, pb, pc are equal; or, `decisive`,
 * only those in which the tied candidates differ, so breaking the tie the wrong way gives a
 * wrong sample (pb == pc < pa and pa == pc < pb; a tie of pa and pb always has left == up).
 */
function tieContexts(decisive: boolean): Uint8Array {
  const out: number[] = [];
  for (let a = 0; a < 256; a++) {
    for (let b = 0; b < 256; b++) {
      for (let c = 0; c < 256; c++) {
        const p = a + b - c;
        const pa = p > a ? p - a : a - p;
        const pb = p > b ? p - b : b - p;
        const pc = p > c ? p - c : c - p;
        const tie = decisive
          ? (pb === pc && pb < pa) || (pa === pc && pa < pb)
          : pa === pb || pa === pc || pb === pc;
        if (tie) out.push(a, b, c);
      }
    }
  }
  return Uint8Array.from(out);
}

/** Tie contexts per pair of rows: the image is twice as wide (pngjs is slow per row). */
const PER_ROW_PAIR = 256;

/**
 * An image of `bits`-bit pixels, 2 x {@link PER_ROW_PAIR} wide, in which every odd pixel of
 * every odd row sees, in each of its byte lanes, one tie context as its (left, up, up-left):
 * in each pair of columns, row 2k holds [upLeft, up] and row 2k + 1 holds [left, target].
 * Returns the packed integers, row-major.
 */
function tieImage(
  contexts: Uint8Array,
  bits: number,
): { values: number[]; width: number; height: number } {
  const lanes = bits / 8;
  const triples = contexts.length / 3;
  const pairs = Math.ceil(triples / lanes / PER_ROW_PAIR);
  const width = 2 * PER_ROW_PAIR;
  const values = new Array<number>(width * 2 * pairs);
  const pixel = (byteOf: (lane: number) => number) => {
    let v = 0;
    for (let lane = 0; lane < lanes; lane++) v = v * 256 + byteOf(lane);
    return v;
  };
  for (let k = 0; k < pairs; k++) {
    for (let m = 0; m < PER_ROW_PAIR; m++) {
      const n = k * PER_ROW_PAIR + m;
      const t = (lane: number) => 3 * ((n * lanes + lane) % triples);
      const top = 2 * k * width + 2 * m;
      const bottom = top + width;
      values[top] = pixel((lane) => contexts[t(lane) + 2]!);
      values[top + 1] = pixel((lane) => contexts[t(lane) + 1]!);
      values[bottom] = pixel((lane) => contexts[t(lane)]!);
      values[bottom + 1] = pixel((lane) => (contexts[t(lane)]! * 7 + n + lane) & 0xff);
    }
  }
  return { values, width, height: 2 * pairs };
}

/** `values` as big-endian bytes of `bits / 8` octets each: the samples a decoder returns. */
function bigEndian(values: readonly number[], bits: number): Uint8Array {
  const lanes = bits / 8;
  const out = new Uint8Array(values.length * lanes);
  values.forEach((v, k) => {
    for (let lane = 0; lane < lanes; lane++)
      out[k * lanes + lane] = Math.floor(v / 2 ** (8 * (lanes - 1 - lane))) % 256;
  });
  return out;
}

/** The filter type of every row of `png` (its IDAT inflated), `rowBytes` per row. */
function rowFilters(png: Buffer, rowBytes: number): Set<number> {
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; at += 12 + png.readUInt32BE(at)) {
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT')
      idat.push(png.subarray(at + 8, at + 8 + png.readUInt32BE(at)));
  }
  const raw = inflateSync(Buffer.concat(idat));
  const filters = new Set<number>();
  for (let at = 0; at < raw.length; at += rowBytes + 1) filters.add(raw[at]!);
  return filters;
}

/** Decodes `png` and counts samples that differ from `expected`, with the first one. */
function mismatches(png: Buffer, pixels: number, bits: number, expected: Uint8Array) {
  const { samples } = decodePngSamples(png, pixels, bits, fail);
  let wrong = 0;
  let first = -1;
  for (let i = 0; i < expected.length; i++) {
    if (samples[i] !== expected[i]) {
      wrong++;
      if (first < 0) first = i;
    }
  }
  return { wrong, first, length: samples.length - expected.length };
}

describe('tie contexts in PNGs pngjs encodes with Paeth on every row', () => {
  const all = tieContexts(false);
  const decisive = tieContexts(true);

  it('the contexts cover the three kinds of tie', () => {
    const kinds = { leftUp: 0, upUpLeft: 0, leftUpLeft: 0, leftUpApart: 0 };
    for (let k = 0; k < all.length; k += 3) {
      const [a, b, c] = [all[k]!, all[k + 1]!, all[k + 2]!];
      const p = a + b - c;
      const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
      if (pa === pb && pa <= pc) kinds.leftUp++;
      if (pa === pb && pa <= pc && a !== b) kinds.leftUpApart++;
      if (pb === pc && pb < pa) kinds.upUpLeft++;
      if (pa === pc && pa < pb) kinds.leftUpLeft++;
    }
    // No tie of left and up has left != up: which of the two a decoder picks cannot matter.
    expect(kinds).toEqual({ leftUp: 65_536, upUpLeft: 21_590, leftUpLeft: 21_590, leftUpApart: 0 });
    expect(decisive.length / 3).toBe(2 * 21_590);
  });

  it('every tie context, 8-bit grey: the samples pngjs encoded', () => {
    const { values, width, height } = tieImage(all, 8);
    const png = gribPng(values, width, height, 8, 4);
    expect([...rowFilters(png, width)]).toEqual([4]);
    expect(mismatches(png, width * height, 8, Uint8Array.from(values))).toEqual({
      wrong: 0,
      first: -1,
      length: 0,
    });
  });

  it.each([8, 16, 24, 32])(
    'every decisive tie context in each byte lane, %i-bit pixels: what pngjs encodes and decodes',
    (bits) => {
      const { values, width, height } = tieImage(decisive, bits);
      const png = gribPng(values, width, height, bits, 4);
      expect([...rowFilters(png, (width * bits) / 8)]).toEqual([4]);
      const expected = bigEndian(values, bits);
      expect(Buffer.from(pngjsSamples(png)).equals(expected)).toBe(true);
      expect(mismatches(png, width * height, bits, expected)).toEqual({
        wrong: 0,
        first: -1,
        length: 0,
      });
    },
  );
});
