/**
 * The reader on the real NOAA MRMS samples: the reflectivity mosaic must equal wgrib2's decode
 * (the golden file) at all 24,500,000 points as float32, bit for bit; the precipitation-flag
 * mosaic decodes to the same grid with flag values only.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { readGrib2 } from '../../../../../src/sources/mrms/grib2/read-grib2';
import type { Grib2Field } from '../../../../../src/sources/mrms/grib2/types';
import {
  mrmsSample,
  PRECIP_FLAG_SAMPLE,
  REFLECTIVITY_GOLDEN,
  REFLECTIVITY_SAMPLE,
} from '../../../../fixtures/mrms-sample';

jest.setTimeout(120_000);

const POINTS = 7000 * 3500;

/** Streams `xz -dc file` and compares it byte for byte with `expected`; counts differing floats. */
async function compareWithXz(file: string, expected: Buffer) {
  const xz = spawn('xz', ['-dc', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  xz.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve, reject) => {
    xz.on('error', reject);
    xz.on('close', resolve);
  });
  let offset = 0;
  let differing = 0;
  let first: { index: number; golden: number; decoded: number } | null = null;
  let pending = Buffer.alloc(0);
  for await (const chunk of xz.stdout as AsyncIterable<Buffer>) {
    const bytes = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    const whole = bytes.length - (bytes.length % 4);
    const ours = expected.subarray(offset, offset + whole);
    if (ours.length !== whole || !ours.equals(bytes.subarray(0, whole))) {
      for (let i = 0; i < whole; i += 4) {
        const golden = bytes.readFloatLE(i);
        const decoded = offset + i + 4 <= expected.length ? expected.readFloatLE(offset + i) : NaN;
        if (!Object.is(golden, decoded)) {
          differing++;
          first ??= { index: (offset + i) / 4, golden, decoded };
        }
      }
    }
    offset += whole;
    pending = Buffer.from(bytes.subarray(whole));
  }
  return { exitCode: await exited, stderr, bytes: offset + pending.length, differing, first };
}

describe('MRMS samples', () => {
  let reflectivity: Grib2Field;
  beforeAll(() => {
    const fields = readGrib2(readFileSync(mrmsSample(REFLECTIVITY_SAMPLE)), REFLECTIVITY_SAMPLE);
    expect(fields).toHaveLength(1);
    reflectivity = fields[0]!;
  });

  it('reads the reflectivity mosaic: one field, grid, times, packing', () => {
    const { values, ...meta } = reflectivity;
    expect(values).toHaveLength(POINTS);
    expect(meta).toEqual({
      message: 0,
      field: 0,
      discipline: 209,
      centre: 161,
      subCentre: 0,
      referenceTime: new Date('2023-04-06T12:00:39Z'),
      referenceTimeSignificance: 3,
      productTemplate: 0,
      category: 3,
      parameter: 57,
      forecastTime: 0,
      forecastUnit: 0,
      validTime: new Date('2023-04-06T12:00:39Z'),
      firstSurface: { type: 102, value: 500 },
      secondSurface: { type: 255, value: null },
      grid: {
        width: 7000,
        height: 3500,
        north: 54.995,
        west: -129.995,
        south: 20.005,
        east: -60.005,
        dLat: 0.01,
        dLon: 0.01,
        bounds: { west: -130, south: 20, east: -60, north: 55 },
        scanningMode: 0,
        shapeOfEarth: 2,
      },
      packing: { template: 41, reference: -9990, binaryScale: 0, decimalScale: 1, bits: 16 },
      missingPoints: 0,
    });
  });

  it("equals wgrib2's float32 decode at all 24,500,000 points, bit for bit", async () => {
    // The golden file is little-endian float32; compare bytes on a little-endian host.
    expect(os.endianness()).toBe('LE');
    const ours = Buffer.from(
      reflectivity.values.buffer,
      reflectivity.values.byteOffset,
      POINTS * 4,
    );
    const result = await compareWithXz(mrmsSample(REFLECTIVITY_GOLDEN), ours);
    expect(result).toEqual({
      exitCode: 0,
      stderr: '',
      bytes: POINTS * 4,
      differing: 0,
      first: null,
    });
  });

  it('reads the precipitation-flag mosaic on the same grid, with flag values only', () => {
    const fields = readGrib2(readFileSync(mrmsSample(PRECIP_FLAG_SAMPLE)), PRECIP_FLAG_SAMPLE);
    expect(fields).toHaveLength(1);
    const flags = fields[0]!;
    expect(flags.grid).toEqual(reflectivity.grid);
    expect(flags.validTime).toEqual(new Date('2026-02-19T04:24:00Z'));
    expect([flags.category, flags.parameter]).not.toEqual([3, 57]);
    expect(flags.packing).toEqual({
      template: 41,
      reference: -3,
      binaryScale: 0,
      decimalScale: 0,
      bits: 8,
    });
    // MRMS precipitation flags: -3 no coverage, 0 none, 1-10 precipitation types, 91/96 tropical.
    const known = new Set([-3, 0, 1, 2, 3, 4, 6, 7, 10, 91, 96]);
    const seen = [...new Set(flags.values)];
    expect(seen.filter((v) => !known.has(v))).toEqual([]);
    expect(seen).toEqual(expect.arrayContaining([-3, 0]));
    expect(seen.filter((v) => v > 0).length).toBeGreaterThan(2);
  });
});
