/**
 * The reader on GRIB2 files the test writes itself (test/fixtures/grib2-encoder.ts): both
 * packings, every scanning mode, bitmaps, several fields and messages, gzip, and the errors
 * for what the reader refuses.
 */
import { gzipSync } from 'node:zlib';
import { Grib2Error } from '../../../../../src/sources/mrms/grib2/grib2-error';
import { readGrib2 } from '../../../../../src/sources/mrms/grib2/read-grib2';
import {
  encodeGrib2Message,
  sectionOffsets,
  type FixtureField,
} from '../../../../fixtures/grib2-encoder';

const WIDTH = 5;
const HEIGHT = 3;
const REFERENCE_TIME = new Date(Date.UTC(2023, 3, 6, 12, 0, 39));
/** Distinct integers per canonical cell, so any misplaced value shows. */
const INTEGERS = Array.from({ length: WIDTH * HEIGHT }, (_, k) => 100 + 7 * k);

function field(overrides: Partial<FixtureField> = {}): FixtureField {
  return {
    width: WIDTH,
    height: HEIGHT,
    northMicro: 54_995_000,
    westMicro: 230_005_000,
    diMicro: 10_000,
    djMicro: 10_000,
    scanMode: 0,
    integers: INTEGERS,
    template: 41,
    bits: 16,
    reference: 0,
    binaryScale: 0,
    decimalScale: 0,
    ...overrides,
  };
}

function encode(...fields: FixtureField[]): Buffer {
  return encodeGrib2Message({ referenceTime: REFERENCE_TIME, fields });
}

function errorOf(run: () => unknown): Grib2Error {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(Grib2Error);
    return error as Grib2Error;
  }
  throw new Error('expected a Grib2Error, but the call returned');
}

/** The 16 combinations of flags 1-4 of flag table 3.4, named in hex. */
const ALL_SCAN_MODES = Array.from({ length: 16 }, (_, n): [string, number] => [
  `0x${(n << 4).toString(16).padStart(2, '0')}`,
  n << 4,
]);
const PACKINGS: Array<Pick<FixtureField, 'template' | 'bits'>> = [
  { template: 0, bits: 12 },
  { template: 41, bits: 8 },
  { template: 41, bits: 16 },
];

describe('readGrib2 on encoded files', () => {
  describe.each(PACKINGS)('template 5.$template, $bits bits', (packing) => {
    it.each(ALL_SCAN_MODES)(
      'scanning mode %s gives canonical values and geometry',
      (_hex, mode) => {
        const [decoded] = readGrib2(encode(field({ ...packing, scanMode: mode })), 'scan.grib2');
        expect(Array.from(decoded!.values)).toEqual(INTEGERS);
        expect(decoded!.grid).toEqual({
          width: 5,
          height: 3,
          north: 54.995,
          west: -129.995,
          south: 54.975,
          east: -129.955,
          dLat: 0.01,
          dLon: 0.01,
          bounds: { west: -130, south: 54.97, east: -129.95, north: 55 },
          scanningMode: mode,
          shapeOfEarth: 6,
        });
        expect(decoded!.missingPoints).toBe(0);
      },
    );
  });

  it('applies R, E and D as (R + X * 2^E) / 10^D in float32', () => {
    const [plain] = readGrib2(
      encode(
        field({
          reference: -9990,
          decimalScale: 1,
          integers: [0, 9891, 9990, 10_100, ...INTEGERS.slice(4)],
        }),
      ),
      'scale.grib2',
    );
    expect(Array.from(plain!.values.slice(0, 4))).toEqual([-999, -9.9, 0, 11].map(Math.fround));
    const [binary] = readGrib2(
      encode(field({ template: 0, bits: 20, reference: 12.5, binaryScale: -3, decimalScale: 2 })),
      'binary.grib2',
    );
    INTEGERS.forEach((x, k) => {
      const exact = (Math.fround(12.5) + x * 2 ** -3) / 100;
      expect(Math.abs(binary!.values[k]! - exact)).toBeLessThanOrEqual(Math.abs(exact) * 2 ** -23);
    });
  });

  it.each([
    { template: 0 as const, bits: 7 },
    { template: 41 as const, bits: 16 },
  ])('marks points a bitmap leaves out as NaN, in the file order (5.$template)', (packing) => {
    const integers = INTEGERS.map((x, k) => (k % 4 === 1 ? null : x % 128));
    for (const scanMode of [0, 0xc0, 0x30]) {
      const [decoded] = readGrib2(
        encode(field({ ...packing, integers, scanMode, bitmap: 'explicit' })),
        'bitmap.grib2',
      );
      expect(Array.from(decoded!.values)).toEqual(integers.map((x) => (x === null ? NaN : x)));
      expect(decoded!.missingPoints).toBe(integers.filter((x) => x === null).length);
    }
  });

  it('reads several fields per message (bitmap 254 reuses the last one) and several messages', () => {
    const integers = INTEGERS.map((x, k) => (k < 3 ? null : x));
    const first = encode(
      field({ integers, bitmap: 'explicit', parameter: 1 }),
      field({
        integers: integers.map((x) => (x === null ? null : x + 1)),
        bitmap: 'reuse',
        parameter: 2,
      }),
    );
    const second = encode(field({ template: 0, bits: 10, parameter: 3, forecastTime: 90 }));
    const fields = readGrib2(Buffer.concat([first, second]), 'many.grib2');
    expect(fields.map((f) => [f.message, f.field, f.parameter])).toEqual([
      [0, 0, 1],
      [0, 1, 2],
      [1, 0, 3],
    ]);
    expect(Array.from(fields[1]!.values.slice(2, 5))).toEqual([
      NaN,
      INTEGERS[3]! + 1,
      INTEGERS[4]! + 1,
    ]);
    expect(fields[2]!.validTime.toISOString()).toBe('2023-04-06T13:30:39.000Z');
  });

  it('reads identification and product definition', () => {
    const [decoded] = readGrib2(encode(field({ forecastTime: 2, forecastUnit: 1 })), 'meta.grib2');
    expect(decoded).toMatchObject({
      discipline: 209,
      centre: 161,
      category: 3,
      parameter: 57,
      referenceTime: REFERENCE_TIME,
      forecastTime: 2,
      forecastUnit: 1,
      validTime: new Date(Date.UTC(2023, 3, 6, 14, 0, 39)),
      firstSurface: { type: 102, value: 500 },
      secondSurface: { type: 255, value: null },
      packing: { template: 41, reference: 0, binaryScale: 0, decimalScale: 0, bits: 16 },
    });
  });

  it('reads a reference year before 100 as written, not as 19xx', () => {
    const early = new Date('0050-04-06T12:00:39Z');
    const [decoded] = readGrib2(
      encodeGrib2Message({ referenceTime: early, fields: [field()] }),
      'early.grib2',
    );
    expect(decoded!.referenceTime.toISOString()).toBe('0050-04-06T12:00:39.000Z');
  });

  it('decodes a constant field (0 bits) and 24- and 32-bit PNGs', () => {
    const [constant] = readGrib2(encode(field({ bits: 0, reference: 4.5 })), 'c.grib2');
    expect(Array.from(constant!.values)).toEqual(INTEGERS.map(() => 4.5));
    for (const bits of [24, 32]) {
      const wide = INTEGERS.map((x) => x * 65_537 + (bits === 32 ? 0x7f000000 : 0));
      const [decoded] = readGrib2(encode(field({ bits, integers: wide })), 'wide.grib2');
      expect(Array.from(decoded!.values)).toEqual(wide.map(Math.fround));
    }
  });

  it('keeps a grid that crosses the antimeridian west < east', () => {
    const [decoded] = readGrib2(
      encode(field({ westMicro: 179_990_000, scanMode: 0x80 })),
      'am.grib2',
    );
    expect(decoded!.grid.west).toBeCloseTo(179.99, 9);
    expect(decoded!.grid.east).toBeCloseTo(180.03, 9);
    expect(Array.from(decoded!.values)).toEqual(INTEGERS);
  });

  it('reads gzip input and gives the same fields', () => {
    const plain = encode(field());
    const [fromGzip] = readGrib2(gzipSync(plain), 'x.grib2.gz');
    expect(fromGzip!.values).toEqual(readGrib2(plain, 'x.grib2')[0]!.values);
  });

  describe('refuses what it does not support, with the file name and the problem', () => {
    function patched(offset: (o: Map<number, number>) => number, bytes: number[]): Buffer {
      const file = encode(field());
      Buffer.from(bytes).copy(file, offset(sectionOffsets(file)));
      return file;
    }
    it.each([
      ['5.40', (o: Map<number, number>) => o.get(5)! + 9, [0, 40], /unsupported template 5\.40 /],
      ['5.3', (o: Map<number, number>) => o.get(5)! + 9, [0, 3], /unsupported template 5\.3 /],
      [
        '4.8',
        (o: Map<number, number>) => o.get(4)! + 7,
        [0, 8],
        /product template 4\.8 is not supported/,
      ],
      [
        '3.30',
        (o: Map<number, number>) => o.get(3)! + 12,
        [0, 30],
        /grid template 3\.30 is not supported/,
      ],
      [
        'bitmap 7',
        (o: Map<number, number>) => o.get(6)! + 5,
        [7],
        /predefined bitmap 7 is not supported/,
      ],
      ['edition 1', () => 7, [1], /GRIB edition 1 is not supported/],
      ['staggered scan', (o: Map<number, number>) => o.get(3)! + 71, [0x08], /staggered/],
      ['month 13', (o: Map<number, number>) => o.get(1)! + 14, [13], /not a real UTC time/],
    ])('%s', (_name, offset, bytes, message) => {
      const error = errorOf(() => readGrib2(patched(offset, bytes), 'MRMS_x.grib2'));
      expect(error.message).toMatch(/^MRMS_x\.grib2: /);
      expect(error.fileName).toBe('MRMS_x.grib2');
      expect(error.message).toMatch(message);
    });

    it('a 5.40 field fails with "unsupported template 5.40"', () => {
      const error = errorOf(() =>
        readGrib2(
          patched((o) => o.get(5)! + 9, [0, 40]),
          'MRMS_j2k.grib2',
        ),
      );
      expect(error.message).toBe(
        'MRMS_j2k.grib2: message 1: section 5: unsupported template 5.40 (JPEG 2000 packing)',
      );
    });
  });

  describe('caps', () => {
    it('refuses a grid above the point cap before decoding it', () => {
      const error = errorOf(() =>
        readGrib2(encode(field()), 'big.grib2', { limits: { maxPoints: 14 } }),
      );
      expect(error.message).toMatch(/grid of 15 points exceeds the reader's cap of 14 points/);
    });
    it('counts points over all fields of the input', () => {
      const two = Buffer.concat([encode(field()), encode(field())]);
      expect(readGrib2(two, 'two.grib2', { limits: { maxPoints: 30 } })).toHaveLength(2);
      expect(() => readGrib2(two, 'two.grib2', { limits: { maxPoints: 29 } })).toThrow(
        /cap of 14 points/,
      );
    });
    it('counts fields over all messages of the input', () => {
      const three = Buffer.concat([encode(field(), field()), encode(field())]);
      expect(readGrib2(three, 'f.grib2', { limits: { maxFields: 3 } })).toHaveLength(3);
      expect(() => readGrib2(three, 'f.grib2', { limits: { maxFields: 2 } })).toThrow(
        "f.grib2: message 2: holds more fields than the reader's cap",
      );
    });
    it('stops inflating gzip input at its cap', () => {
      const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
      const error = errorOf(() =>
        readGrib2(bomb, 'bomb.grib2.gz', { limits: { maxInflatedBytes: 1 << 20 } }),
      );
      expect(error.message).toBe(
        "bomb.grib2.gz: gzip data inflates past the reader's cap of 1048576 bytes",
      );
    });
  });
});
