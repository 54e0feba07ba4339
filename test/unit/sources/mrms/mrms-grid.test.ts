/**
 * The MRMS source of grids: the real NOAA sample becomes a ReflectivityGrid with MRMS's
 * geometry, markers and valid time, its archive is named 202304061200; a field that is not
 * reflectivity is refused by name; points a bitmap marks absent count as no coverage.
 */
import { readFileSync } from 'node:fs';
import { readGrib2 } from '../../../../src/sources/mrms/grib2/read-grib2';
import { MrmsProductError, mrmsReflectivityGrid } from '../../../../src/sources/mrms/mrms-grid';
import { convertMrmsFile, mrmsArchiveFacts } from '../../../../src/sources/mrms/mrms-frame';
import { readArchiveMetadata } from '../../../../src/pmtiles/archive-metadata';
import { formatTimestamp } from '../../../../src/domain/timestamps';
import { encodeGrib2Message } from '../../../fixtures/grib2-encoder';
import { mrmsSample, PRECIP_FLAG_SAMPLE, REFLECTIVITY_SAMPLE } from '../../../fixtures/mrms-sample';

jest.setTimeout(60_000);

describe('the reflectivity sample', () => {
  const bytes = readFileSync(mrmsSample(REFLECTIVITY_SAMPLE));
  const grid = mrmsReflectivityGrid(readGrib2(bytes, REFLECTIVITY_SAMPLE), REFLECTIVITY_SAMPLE);

  it('has the CONUS mosaic geometry in the renderer layout', () => {
    expect(grid).toMatchObject({
      width: 7000,
      height: 3500,
      west: -129.995,
      north: 54.995,
      dLon: 0.01,
      dLat: 0.01,
      noCoverage: -999,
      noEcho: -99,
      product: 'MRMS ReflectivityAtLowestAltitude 00.50',
    });
    expect(grid.values).toHaveLength(7000 * 3500);
  });

  it('keeps the markers apart: cells without coverage, without echo, with reflectivity', () => {
    let noCoverage = 0;
    let noEcho = 0;
    let echo = 0;
    let max = -Infinity;
    for (const v of grid.values) {
      if (v === -999) noCoverage++;
      else if (v === -99) noEcho++;
      else {
        echo++;
        if (v > max) max = v;
      }
    }
    // Counted from wgrib2's decode of the same file.
    expect(noCoverage).toBe(8_528_048);
    expect(noEcho).toBe(15_041_671);
    expect(echo).toBe(7000 * 3500 - 8_528_048 - 15_041_671);
    expect(max).toBe(60);
  });

  it('is valid at the GRIB2 valid time, 2023-04-06 12:00:39 UTC: timestamp 202304061200', () => {
    expect(new Date(grid.validTimeMs).toISOString()).toBe('2023-04-06T12:00:39.000Z');
    expect(formatTimestamp(grid.validTimeMs)).toBe('202304061200');
  });
});

it('converts the sample to an archive that names its product, timestamp and coverage', () => {
  const name = REFLECTIVITY_SAMPLE;
  const archive = convertMrmsFile({ name, bytes: readFileSync(mrmsSample(name)) });
  expect(mrmsArchiveFacts(archive)).toEqual({
    timestamp: '202304061200',
    validTimeMs: Date.UTC(2023, 3, 6, 12, 0, 39),
  });
  const metadata = readArchiveMetadata(archive);
  expect(metadata).toMatchObject({
    product: 'MRMS ReflectivityAtLowestAltitude 00.50',
    validTime: '2023-04-06T12:00:39.000Z',
    units: 'dBZ',
    source: name,
    generator: 'radar-tiles mrms 1',
    attribution: expect.stringContaining('MRMS'),
  });
  const cells = metadata.cells as { noCoverage: number; noEcho: number; echo: number };
  expect(cells.noCoverage).toBe(8_528_048);
  expect(cells.noCoverage + cells.noEcho + cells.echo).toBe(24_500_000);
  expect(cells.echo).toBeGreaterThan(100_000);
});

it('refuses the precipitation-flag sample as not reflectivity, naming the file and its codes', () => {
  const bytes = readFileSync(mrmsSample(PRECIP_FLAG_SAMPLE));
  const fields = readGrib2(bytes, PRECIP_FLAG_SAMPLE);
  let caught: unknown;
  try {
    mrmsReflectivityGrid(fields, PRECIP_FLAG_SAMPLE);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(MrmsProductError);
  expect((caught as Error).message).toBe(
    `${PRECIP_FLAG_SAMPLE}: not a reflectivity grid: discipline 209 category 6 parameter 0; ` +
      'only MRMS reflectivity products in dBZ (discipline 209) are rendered',
  );
  expect(() => convertMrmsFile({ name: PRECIP_FLAG_SAMPLE, bytes })).toThrow(MrmsProductError);
});

describe('small files written by the test', () => {
  const WIDTH = 4;
  const HEIGHT = 2;
  const referenceTime = new Date(Date.UTC(2024, 5, 1, 18, 4, 59));
  const base = {
    width: WIDTH,
    height: HEIGHT,
    northMicro: 40_005_000,
    westMicro: 260_005_000, // 100W as 0..360
    diMicro: 10_000,
    djMicro: 10_000,
    scanMode: 0,
    template: 41 as const,
    bits: 16,
    reference: -9990,
    binaryScale: 0,
    decimalScale: 1,
  };
  /** dBZ x 10 + 9990, MRMS's packing: -999 -> 0, -99 -> 9000, 42.5 dBZ -> 10415. */
  const packed = (dbz: number | null) => (dbz === null ? null : Math.round(dbz * 10 + 9990));

  it('reads points the bitmap marks absent as no coverage, apart from no echo', () => {
    const file = encodeGrib2Message({
      referenceTime,
      fields: [
        {
          ...base,
          bitmap: 'explicit',
          integers: [null, -999, -99, 42.5, null, 10, -99, 60].map(packed),
        },
      ],
    });
    const name = 'MRMS_ReflectivityAtLowestAltitude_00.50_20240601-180459.grib2';
    const grid = mrmsReflectivityGrid(readGrib2(file, name), name);
    expect(grid.west).toBeCloseTo(-99.995, 9);
    expect(Array.from(grid.values)).toEqual([NaN, -999, -99, 42.5, NaN, 10, -99, 60]);
    const metadata = readArchiveMetadata(convertMrmsFile({ name, bytes: file }));
    expect(metadata.cells).toEqual({ noCoverage: 3, noEcho: 2, echo: 3 });
    expect(metadata.timestamp).toBe('202406011804');
  });

  it('takes the product name from the field when the file name says nothing', () => {
    const file = encodeGrib2Message({
      referenceTime,
      fields: [{ ...base, category: 10, parameter: 0, integers: Array(8).fill(packed(20)) }],
    });
    expect(mrmsReflectivityGrid(readGrib2(file, 'x.grib2'), 'x.grib2').product).toBe(
      'MRMS MergedReflectivityQCComposite',
    );
  });

  it('refuses a field of another discipline, and a grid the renderer cannot draw', () => {
    const other = encodeGrib2Message({
      discipline: 0,
      referenceTime,
      fields: [{ ...base, integers: Array(8).fill(packed(20)) }],
    });
    expect(() => mrmsReflectivityGrid(readGrib2(other, 'a.grib2'), 'a.grib2')).toThrow(
      'a.grib2: not a reflectivity grid: discipline 0 category 3 parameter 57',
    );
    // Centres from 179.995E eastwards: the grid crosses the antimeridian.
    const crossing = encodeGrib2Message({
      referenceTime,
      fields: [{ ...base, westMicro: 179_995_000, integers: Array(8).fill(packed(20)) }],
    });
    expect(() => mrmsReflectivityGrid(readGrib2(crossing, 'b.grib2'), 'b.grib2')).toThrow(
      /^b\.grib2: ReflectivityAtLowestAltitude cannot be rendered: longitudes .* leave -180\.\.180/,
    );
  });
});
