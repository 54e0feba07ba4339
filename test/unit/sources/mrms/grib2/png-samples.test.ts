/**
 * The minimal PNG decoder of template 5.41 against pngjs on the same inputs (both real MRMS
 * PNGs, and generated ones of every GRIB2 shape and filter type), and its refusal of hostile
 * PNGs: each fails with a Grib2Error naming the problem, before inflating anything sized by
 * the file where the header already disagrees with the grid.
 */
import { readFileSync } from 'node:fs';
import { crc32 as zlibCrc32, deflateSync, gunzipSync } from 'node:zlib';
import { crc32 } from '../../../../../src/shared/crc32';
import { failFor, Grib2Error } from '../../../../../src/sources/mrms/grib2/grib2-error';
import { decodePngSamples } from '../../../../../src/sources/mrms/grib2/png-samples';
import { gribPng, sectionOffsets } from '../../../../fixtures/grib2-encoder';
import { pngjsSamples, pngjsSamplesInWorker } from '../../../../fixtures/pngjs-samples';
import {
  mrmsSample,
  PRECIP_FLAG_SAMPLE,
  REFLECTIVITY_SAMPLE,
} from '../../../../fixtures/mrms-sample';
import { createUniformSequence } from '../../../../../src/sim/noise';

jest.setTimeout(120_000);

const fail = failFor('f.grib2');

/** The PNG of the sample's data section and the template's bits per value. */
function samplePng(file: string): { png: Buffer; bits: number } {
  const bytes = gunzipSync(readFileSync(mrmsSample(file)));
  const offsets = sectionOffsets(bytes);
  const s7 = offsets.get(7)!;
  return {
    png: bytes.subarray(s7 + 5, s7 + bytes.readUInt32BE(s7)),
    bits: bytes[offsets.get(5)! + 19]!,
  };
}

function expectEqualBytes(actual: Uint8Array, expected: Uint8Array) {
  expect(actual.length).toBe(expected.length);
  const same = Buffer.from(actual.buffer, actual.byteOffset, actual.length).equals(
    Buffer.from(expected.buffer, expected.byteOffset, expected.length),
  );
  expect(same).toBe(true);
}

describe('minimal PNG decoder against pngjs', () => {
  it.each([
    [REFLECTIVITY_SAMPLE, 16],
    [PRECIP_FLAG_SAMPLE, 8],
  ])('decodes the PNG of %s to the samples pngjs gives', async (file, bits) => {
    const { png, bits: templateBits } = samplePng(file);
    expect(templateBits).toBe(bits);
    const oracle = pngjsSamplesInWorker(png); // in a worker thread, meanwhile
    const ours = decodePngSamples(png, 7000 * 3500, templateBits, fail);
    expect(ours.bits).toBe(bits);
    expectEqualBytes(ours.samples, await oracle);
  });

  const shapes = [8, 16, 24, 32];
  const filters = [0, 1, 2, 3, 4, -1];
  it.each(shapes.flatMap((bits) => filters.map((filter) => [bits, filter])))(
    '%i-bit pixels, pngjs filter type %i',
    async (bits, filter) => {
      const random = createUniformSequence(bits * 10 + filter + 7);
      const [width, height] = [37, 11];
      const values = Array.from({ length: width * height }, () =>
        Math.floor(random() * 2 ** Math.min(bits, 31)),
      );
      const png = gribPng(values, width, height, bits, filter);
      const ours = decodePngSamples(png, width * height, bits, fail);
      expectEqualBytes(ours.samples, pngjsSamples(png));
    },
  );
});

/** A PNG put together chunk by chunk (CRCs by Node's zlib, independent of the decoder's). */
function chunk(type: string, data: Uint8Array, crcOverride?: number): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crcOverride ?? zlibCrc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
function ihdr(width: number, height: number, depth = 8, colourType = 0, interlace = 0): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data.set([depth, colourType, 0, 0, interlace], 8);
  return chunk('IHDR', data);
}
/** Scanlines of a 4 x 4 8-bit grey image (filter 0), `rows` rows of them. */
function scanlines(rows: number, filter = 0): Buffer {
  const out = Buffer.alloc(rows * 5);
  for (let y = 0; y < rows; y++) out.set([filter, y, y + 1, y + 2, y + 3], y * 5);
  return out;
}
const IEND = chunk('IEND', new Uint8Array(0));
const png = (...parts: Buffer[]) => Buffer.concat([SIGNATURE, ...parts]);
const GOOD = png(ihdr(4, 4), chunk('IDAT', deflateSync(scanlines(4))), IEND);

describe('hostile PNGs', () => {
  it('accepts the well-formed 4 x 4 image these cases start from, and skips ancillary chunks', () => {
    const withText = png(
      ihdr(4, 4),
      chunk('tEXt', Buffer.from('a\0b')),
      chunk('IDAT', deflateSync(scanlines(4))),
      IEND,
    );
    for (const input of [GOOD, withText]) {
      expect(Array.from(decodePngSamples(input, 16, 8, fail).samples)).toEqual([
        0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6,
      ]);
    }
  });

  const cases: Array<[string, Buffer, number, number, RegExp]> = [
    ['no signature', GOOD.subarray(1), 16, 8, /does not start with the PNG signature/],
    [
      'a bad CRC',
      png(ihdr(4, 4), chunk('IDAT', deflateSync(scanlines(4)), 0x12345678), IEND),
      16,
      8,
      /chunk IDAT at byte 33 fails its CRC check/,
    ],
    [
      'a size that disagrees with the grid',
      GOOD,
      15,
      8,
      /PNG of 4 x 4 pixels disagrees with the 15 values/,
    ],
    [
      '10^9 pixels in the header',
      png(ihdr(100_000, 10_000), chunk('IDAT', deflateSync(scanlines(4))), IEND),
      16,
      8,
      /100000 x 10000 pixels disagrees/,
    ],
    [
      'interlacing',
      png(ihdr(4, 4, 8, 0, 1), chunk('IDAT', deflateSync(scanlines(4))), IEND),
      16,
      8,
      /interlaced PNG is not supported/,
    ],
    [
      'a palette image',
      png(ihdr(4, 4, 8, 3), chunk('IDAT', deflateSync(scanlines(4))), IEND),
      16,
      8,
      /colour type 3 at 8 bits is not a GRIB2 shape/,
    ],
    [
      '4-bit grey',
      png(ihdr(4, 4, 4, 0), chunk('IDAT', deflateSync(scanlines(4))), IEND),
      16,
      8,
      /colour type 0 at 4 bits/,
    ],
    [
      'template bits that disagree',
      GOOD,
      16,
      16,
      /PNG of 8-bit pixels disagrees with the template's 16 bits/,
    ],
    [
      'a chunk length past the end',
      (() => {
        const b = Buffer.from(GOOD);
        b.writeUInt32BE(0x7fffffff, 33);
        return b;
      })(),
      16,
      8,
      /chunk IDAT length 2147483647 at byte 33 runs past the end/,
    ],
    [
      'image data inflating past the header size',
      png(ihdr(4, 4), chunk('IDAT', deflateSync(scanlines(400))), IEND),
      16,
      8,
      /inflates past the 20 bytes its 4 x 4 size allows/,
    ],
    [
      'image data too short',
      png(ihdr(4, 4), chunk('IDAT', deflateSync(scanlines(3))), IEND),
      16,
      8,
      /inflates to 15 bytes, not the 20/,
    ],
    [
      'image data that is not zlib',
      png(ihdr(4, 4), chunk('IDAT', Buffer.from('not zlib at all')), IEND),
      16,
      8,
      /image data does not inflate/,
    ],
    [
      'an unknown filter type',
      png(ihdr(4, 4), chunk('IDAT', deflateSync(scanlines(4, 9))), IEND),
      16,
      8,
      /row 0 uses unknown filter type 9/,
    ],
    ['no IEND', png(ihdr(4, 4), chunk('IDAT', deflateSync(scanlines(4)))), 16, 8, /no IEND/],
    ['no IDAT', png(ihdr(4, 4), IEND), 16, 8, /no IDAT/],
    [
      'IDAT before IHDR',
      png(chunk('IDAT', deflateSync(scanlines(4))), ihdr(4, 4), IEND),
      16,
      8,
      /starts with chunk IDAT, not IHDR/,
    ],
    [
      'an unknown critical chunk',
      png(
        ihdr(4, 4),
        chunk('ABCD', Buffer.alloc(3)),
        chunk('IDAT', deflateSync(scanlines(4))),
        IEND,
      ),
      16,
      8,
      /unknown critical chunk ABCD/,
    ],
  ];
  it.each(cases)('refuses %s', (_name, input, pixels, bits, message) => {
    let caught: unknown;
    try {
      decodePngSamples(input, pixels, bits, fail);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Grib2Error);
    expect((caught as Grib2Error).message).toMatch(/^f\.grib2: /);
    expect((caught as Grib2Error).message).toMatch(message);
  });
});

it("crc32 equals Node's zlib.crc32", () => {
  const random = createUniformSequence(42);
  const bytes = Uint8Array.from({ length: 4099 }, () => Math.floor(random() * 256));
  for (const [start, end] of [
    [0, 0],
    [0, 1],
    [3, 4099],
    [100, 2000],
  ] as const) {
    expect(crc32(bytes, start, end)).toBe(zlibCrc32(bytes.subarray(start, end)));
  }
});
