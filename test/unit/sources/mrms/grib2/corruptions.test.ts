/**
 * Corrupted variants of the real MRMS reflectivity sample against the GRIB2 reader: truncation
 * at and around every section boundary, flipped bytes, and lying lengths (message and section
 * lengths, PNG chunk lengths, grid dimensions and point counts of 10^9). Every case must end in
 * a Grib2Error naming the file, or in a valid decode; any other exception fails the test. Each
 * case is bounded by construction: sizes are checked against the caps (100 million points, 256
 * MiB inflated) before anything is allocated. The random flips run once with a fixed seed and
 * once with a fresh seed printed at the start (replay it with FUZZ_SEED=<n>).
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { crc32 } from '../../../../../src/shared/crc32';
import { Grib2Error } from '../../../../../src/sources/mrms/grib2/grib2-error';
import { readGrib2 } from '../../../../../src/sources/mrms/grib2/read-grib2';
import { sectionOffsets } from '../../../../fixtures/grib2-encoder';
import { mrmsSample, REFLECTIVITY_SAMPLE } from '../../../../fixtures/mrms-sample';
import { fuzzParameters } from '../../../../harness/fuzz/fuzz-run';

jest.setTimeout(600_000);

const NAME = 'MRMS_x.grib2';
const gz = readFileSync(mrmsSample(REFLECTIVITY_SAMPLE));
const plain = gunzipSync(gz);
const offsets = sectionOffsets(plain);
const section = (n: number) => offsets.get(n)!;
/** Start of the PNG inside section 7, and of its first chunks. */
const PNG_START = section(7) + 5;
const IHDR_AT = PNG_START + 8;
const FIRST_IDAT_AT = IHDR_AT + 25;

const tally = new Map<string, number>();
const summary: string[] = [];

/** Runs the reader on `bytes`; returns 'decoded' or the error's problem class, throws otherwise. */
function outcome(bytes: Uint8Array, name = NAME): string {
  try {
    const fields = readGrib2(bytes, name);
    for (const f of fields) expect(f.values.length).toBe(f.grid.width * f.grid.height);
    count('decoded');
    return 'decoded';
  } catch (error) {
    if (!(error instanceof Grib2Error)) throw error;
    expect(error.fileName).toBe(name);
    expect(error.message.startsWith(`${name}: `)).toBe(true);
    count('Grib2Error');
    return 'Grib2Error';
  }
}
function count(key: string) {
  tally.set(key, (tally.get(key) ?? 0) + 1);
}
function report(group: string) {
  summary.push(`${group}: ${[...tally].map(([k, n]) => `${k}×${n}`).join(', ')}`);
  tally.clear();
}
afterAll(() =>
  process.stdout.write(`[fuzz] grib2-corruptions.test.ts\n  ${summary.join('\n  ')}\n`),
);

function withUint(bytes: Uint8Array, at: number, value: number, octets: 1 | 2 | 4 | 8): Buffer {
  const out = Buffer.from(bytes);
  if (octets === 8) out.writeBigUInt64BE(BigInt(value), at);
  else out.writeUIntBE(value, at, octets);
  return out;
}
/** `bytes` with PNG chunk data at `chunkAt` rewritten by `edit`, its CRC made valid again. */
function withPngChunk(chunkAt: number, edit: (data: Buffer) => void): Buffer {
  const out = Buffer.from(plain);
  const length = out.readUInt32BE(chunkAt);
  edit(out.subarray(chunkAt + 8, chunkAt + 8 + length));
  out.writeUInt32BE(crc32(out, chunkAt + 4, chunkAt + 8 + length), chunkAt + 8 + length);
  return out;
}

it('the uncorrupted sample decodes', () => {
  expect(outcome(plain)).toBe('decoded');
  expect(outcome(gz, `${NAME}.gz`)).toBe('decoded');
  report('uncorrupted');
});

it('truncation at and around every section boundary fails cleanly', () => {
  const boundaries = [
    ...[0, 1, 2, 3, 4, 5, 6, 7].map(section),
    PNG_START + 8,
    FIRST_IDAT_AT,
    FIRST_IDAT_AT + 8200,
    plain.length,
  ];
  const cuts = new Set<number>();
  for (const b of boundaries) for (let d = -3; d <= 3; d++) cuts.add(b + d);
  for (const cut of [...cuts].filter((c) => c >= 0 && c < plain.length)) {
    // As cut off: the message length now runs past the end of the file.
    expect(outcome(plain.subarray(0, cut))).toBe('Grib2Error');
    // Re-framed: the message length and "7777" say the message ends there.
    if (cut >= 16) {
      const framed = Buffer.concat([plain.subarray(0, cut), Buffer.from('7777')]);
      framed.writeBigUInt64BE(BigInt(framed.length), 8);
      expect(outcome(framed)).toBe('Grib2Error');
    }
  }
  for (const cut of [0, 1, 10, 11, 100, gz.length / 2, gz.length - 8, gz.length - 1]) {
    expect(outcome(gz.subarray(0, Math.floor(cut)), `${NAME}.gz`)).toBe('Grib2Error');
  }
  report('truncations');
});

it('flipped bytes at deterministic positions end in a Grib2Error or a valid decode', () => {
  // Every octet of sections 0-6, the PNG signature, IHDR and the first IDAT header, a spread of
  // image-data octets, and the end marker.
  const positions = new Set<number>();
  for (let p = 0; p < FIRST_IDAT_AT + 8; p++) positions.add(p);
  for (let k = 1; k <= 16; k++)
    positions.add(FIRST_IDAT_AT + Math.floor(((plain.length - FIRST_IDAT_AT) * k) / 17));
  for (let p = plain.length - 4; p < plain.length; p++) positions.add(p);
  for (const p of positions) {
    const flipped = Buffer.from(plain);
    flipped[p] = flipped[p]! ^ 0xff;
    outcome(flipped);
  }
  report('flipped bytes');
});

it('lying lengths end in a Grib2Error or a valid decode', () => {
  const lies = (actual: number) => [0, 1, 4, 5, actual - 1, actual + 1, 9999, 1e9, 0xffffffff];
  // Message length (octets 9-16).
  for (const length of [
    0,
    1,
    16,
    19,
    20,
    plain.length - 1,
    plain.length + 1,
    2 ** 32,
    2 ** 53 - 1,
  ]) {
    expect(outcome(withUint(plain, 8, length, 8))).toBe('Grib2Error');
  }
  const max64 = Buffer.from(plain);
  max64.fill(0xff, 8, 16);
  expect(outcome(max64)).toBe('Grib2Error');
  // Every section's length.
  for (const n of [1, 3, 4, 5, 6, 7]) {
    const actual = plain.readUInt32BE(section(n));
    for (const lie of lies(actual))
      expect(outcome(withUint(plain, section(n), lie, 4))).toBe('Grib2Error');
  }
  // Grid dimensions and point counts of 10^9 (alone, and made consistent with each other).
  const s3 = section(3);
  for (const [octet, value] of [
    [6, 1e9],
    [30, 1e9],
    [34, 1e9],
    [30, 100_000],
  ] as const) {
    expect(outcome(withUint(plain, s3 + octet, value, 4))).toBe('Grib2Error');
  }
  const huge = withUint(withUint(plain, s3 + 30, 100_000, 4), s3 + 34, 10_000, 4);
  expect(outcome(withUint(huge, s3 + 6, 1e9, 4))).toBe('Grib2Error');
  expect(outcome(withUint(plain, section(5) + 5, 1e9, 4))).toBe('Grib2Error');
  // PNG chunk lengths (IHDR, first IDAT, IEND) and IHDR dimensions (with a valid CRC).
  const iend = section(8) - 12;
  for (const at of [IHDR_AT, FIRST_IDAT_AT, iend]) {
    const actual = plain.readUInt32BE(at);
    for (const lie of [
      0,
      12,
      actual + 1,
      Math.max(0, actual - 1),
      2 ** 31 - 1,
      2 ** 31,
      0xffffffff,
    ]) {
      if (lie !== actual) expect(outcome(withUint(plain, at, lie, 4))).toBe('Grib2Error');
    }
  }
  for (const [width, height] of <Array<[number, number]>>[
    [1e9, 3500],
    [7000, 1e9],
    [3500, 7000],
    [7000, 3499],
    [0, 0],
  ]) {
    const lying = withPngChunk(IHDR_AT, (data) => {
      data.writeUInt32BE(width, 0);
      data.writeUInt32BE(height, 4);
    });
    expect(outcome(lying)).toBe('Grib2Error');
  }
  report('lying lengths');
});

it('random corruptions (fixed seed, then a fresh printed seed) end in a Grib2Error or a valid decode', () => {
  // Mostly the headers, where a flip changes meaning; sometimes anywhere in the file.
  const position = fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: FIRST_IDAT_AT + 7 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: plain.length - 1 }) },
  );
  const corruption = fc.array(fc.tuple(position, fc.integer({ min: 1, max: 255 })), {
    minLength: 1,
    maxLength: 3,
  });
  const property = fc.property(corruption, (edits) => {
    const bytes = Buffer.from(plain);
    for (const [at, mask] of edits) bytes[at] = bytes[at]! ^ mask;
    outcome(bytes);
  });
  const freshSeed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
  process.stdout.write(
    `[fuzz] grib2 random corruptions: seed ${freshSeed} (replay with FUZZ_SEED=${freshSeed})\n`,
  );
  for (const seed of [20230406, freshSeed]) {
    fc.assert(property, fuzzParameters<[Array<[number, number]>]>(40, seed));
    report(`random flips, seed ${seed}`);
  }
});
