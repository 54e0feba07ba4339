/**
 * The MRMS precipitation flag: the real NOAA PrecipFlag sample decodes to the codes of NOAA's
 * table only; a reflectivity frame paired with a flag of its cycle (the sample flag re-timed,
 * as NOAA stamps flags to the cycle) is published typed, with snow where the flag says 3; and
 * every flag that cannot type the frame (another cycle, another product, not GRIB2, another
 * grid) leaves the frame published untyped, its metadata saying why.
 */
import { readFileSync } from 'node:fs';
import { PRECIP_FLAG_CODES } from '../../../../src/domain/precip-type-grid';
import { readArchiveMetadata } from '../../../../src/pmtiles/archive-metadata';
import { readGrib2 } from '../../../../src/sources/mrms/grib2/read-grib2';
import { convertMrmsFile, mrmsArchiveFacts } from '../../../../src/sources/mrms/mrms-frame';
import { mrmsReflectivityGrid } from '../../../../src/sources/mrms/mrms-grid';
import {
  pairingProblem,
  precipFlagFrame,
  type PrecipFlagFrame,
} from '../../../../src/sources/mrms/mrms-precip-flag';
import {
  corruptFrameAt,
  mrmsFileName,
  SAMPLE_TIME_MS,
  sampleFlagAt,
  sampleFrameAt,
} from '../../../fixtures/mrms-frames';
import { mrmsSample, PRECIP_FLAG_SAMPLE } from '../../../fixtures/mrms-sample';

/** The 2-minute cycle of the sample reflectivity (12:00:39): its flag is stamped 12:00:00. */
const CYCLE_MS = SAMPLE_TIME_MS - 39_000;
const MAX_ZOOM = 4;

describe('the real PrecipFlag sample', () => {
  const fields = readGrib2(readFileSync(mrmsSample(PRECIP_FLAG_SAMPLE)), PRECIP_FLAG_SAMPLE);
  const frame = precipFlagFrame(fields) as PrecipFlagFrame;

  it('is PrecipFlag on the 7000 x 3500 CONUS grid, valid at its file time', () => {
    expect(typeof frame).toBe('object');
    expect([frame.types.width, frame.types.height]).toEqual([7000, 3500]);
    expect(new Date(frame.validTimeMs).toISOString()).toBe('2026-02-19T04:24:00.000Z');
  });

  it("decodes to the codes of NOAA's table only, snow among them", () => {
    const seen = new Map<number, number>();
    for (const code of frame.types.codes) seen.set(code, (seen.get(code) ?? 0) + 1);
    const codes = [...seen.keys()].sort((a, b) => a - b);
    expect(codes.every((code) => PRECIP_FLAG_CODES.includes(code))).toBe(true);
    expect(codes).toEqual([-3, 0, 1, 3, 6, 7, 10]);
    expect(seen.get(3)).toBeGreaterThan(100_000);
  });

  it('is refused as a reflectivity grid, and a reflectivity file is refused as a flag', () => {
    const reflectivity = readGrib2(sampleFrameAt().bytes, 'reflectivity');
    expect(precipFlagFrame(reflectivity)).toMatch(
      /^not PrecipFlag: discipline 209 category 3 parameter 57/,
    );
  });
});

describe('pairing', () => {
  const reflectivity = sampleFrameAt();
  const grid = mrmsReflectivityGrid(readGrib2(reflectivity.bytes, reflectivity.name), 'r');
  const flagAt = (timeMs: number) =>
    precipFlagFrame(readGrib2(sampleFlagAt(timeMs).bytes, 'flag')) as PrecipFlagFrame;

  it('pairs the flag of the cycle (39 s before) and one up to 60 s away', () => {
    expect(pairingProblem(grid, flagAt(CYCLE_MS))).toBeUndefined();
    expect(pairingProblem(grid, flagAt(SAMPLE_TIME_MS + 60_000))).toBeUndefined();
  });

  it('never pairs the flag of another cycle', () => {
    expect(pairingProblem(grid, flagAt(CYCLE_MS - 120_000))).toMatch(/159 s from the reflectivity/);
    expect(pairingProblem(grid, flagAt(CYCLE_MS + 120_000))).toMatch(/81 s from/);
  });

  it('refuses a flag grid of another shape or place', () => {
    const flag = flagAt(CYCLE_MS);
    const narrow = {
      ...flag,
      types: { width: 3500, height: 3500, codes: new Float32Array(3500 * 3500) },
    };
    expect(pairingProblem(grid, narrow)).toMatch(/type grid is 3500 x 3500.* 7000 x 3500/);
    const shifted = { ...flag, geometry: { ...flag.geometry, west: flag.geometry.west + 1 } };
    expect(pairingProblem(grid, shifted)).toMatch(/flag grid starts at/);
  });
});

describe('convertMrmsFile with a flag', () => {
  const reflectivity = sampleFrameAt();

  it('publishes the paired frame typed and names its flag', () => {
    const flag = sampleFlagAt(CYCLE_MS);
    const archive = convertMrmsFile({ ...reflectivity, flag }, { maxZoom: MAX_ZOOM });
    const metadata = readArchiveMetadata(archive);
    expect(metadata.precipitationType).toMatchObject({ typed: true });
    expect(mrmsArchiveFacts(archive).flag).toEqual({ file: flag.name, used: true });
    expect(flag.name).toBe('MRMS_PrecipFlag_00.00_20230406-120000.grib2.gz');
  });

  it.each([
    ['a flag of another cycle', () => sampleFlagAt(CYCLE_MS + 120_000), /81 s from/],
    [
      'a reflectivity file named as a flag',
      () => ({ ...sampleFrameAt(CYCLE_MS), name: mrmsFileName(CYCLE_MS, 'PrecipFlag_00.00') }),
      /not PrecipFlag/,
    ],
    ['a hostile flag (not GRIB2)', () => ({ ...corruptFrameAt(CYCLE_MS) }), /./],
    ['an empty flag', () => ({ name: 'empty.grib2', bytes: Buffer.alloc(0) }), /./],
  ])('publishes the frame untyped with %s, saying why', (_label, make, why) => {
    const flag = make();
    const archive = convertMrmsFile({ ...reflectivity, flag }, { maxZoom: MAX_ZOOM });
    expect(readArchiveMetadata(archive).precipitationType).toEqual({ typed: false });
    const note = mrmsArchiveFacts(archive).flag!;
    expect([note.used, note.file]).toEqual([false, flag.name]);
    expect(note.problem).toMatch(why);
  });

  it('without a flag says nothing of one, unless told why there is none', () => {
    expect(mrmsArchiveFacts(convertMrmsFile(reflectivity, { maxZoom: 2 })).flag).toBeUndefined();
    const waited = convertMrmsFile(
      { ...reflectivity, untypedReason: 'no flag within 60 s' },
      { maxZoom: 2 },
    );
    expect(mrmsArchiveFacts(waited).flag).toEqual({
      file: null,
      used: false,
      problem: 'no flag within 60 s',
    });
  });
});
