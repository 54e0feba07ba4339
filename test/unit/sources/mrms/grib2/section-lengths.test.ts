/**
 * One quick case per length rule of the GRIB2 reader, each on a file the test writes and then
 * cuts, pads or relabels so that exactly that rule is the first to fail: the file against
 * section 0, the message length against the file, "7777", every section header and length
 * against the message (a section running into "7777" included), and each section's own
 * minimum or exact length, bitmap and data sizes. Each case expects the rule's own message, so
 * a rule removed shows here even where a later check would still refuse the file.
 */
import { Grib2Error } from '../../../../../src/sources/mrms/grib2/grib2-error';
import { readGrib2 } from '../../../../../src/sources/mrms/grib2/read-grib2';
import { encodeGrib2Message, type FixtureField } from '../../../../fixtures/grib2-encoder';

const NAME = 'f.grib2';

function field(overrides: Partial<FixtureField> = {}): FixtureField {
  return {
    width: 5,
    height: 3,
    northMicro: 54_995_000,
    westMicro: 230_005_000,
    diMicro: 10_000,
    djMicro: 10_000,
    scanMode: 0,
    integers: Array.from({ length: 15 }, (_, k) => 100 + 7 * k),
    template: 41,
    bits: 16,
    reference: 0,
    binaryScale: 0,
    decimalScale: 0,
    ...overrides,
  };
}

/** A one-message file of one field. */
function file(overrides: Partial<FixtureField> = {}): Buffer {
  return encodeGrib2Message({
    referenceTime: new Date(Date.UTC(2023, 3, 6)),
    fields: [field(overrides)],
  });
}

/** The sections of a one-message file between section 0 and "7777", as copies. */
function sectionsOf(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 16; at < bytes.length - 4; at += bytes.readUInt32BE(at))
    out.push(Buffer.from(bytes.subarray(at, at + bytes.readUInt32BE(at))));
  return out;
}

/** A message of section 0 (from `like`), `sections` and "7777", its length set to fit. */
function message(like: Buffer, sections: Buffer[], end = '7777'): Buffer {
  const out = Buffer.concat([like.subarray(0, 16), ...sections, Buffer.from(end, 'latin1')]);
  out.writeBigUInt64BE(BigInt(out.length), 8);
  return out;
}

/**
 * `bytes` with section `n` cut or zero-padded to `length` octets and its length octets saying
 * so; the message length follows, so the section still ends where the next one starts.
 */
function resized(bytes: Buffer, n: number, length: number): Buffer {
  const sections = sectionsOf(bytes).map((s) => {
    if (s[4] !== n) return s;
    const out = Buffer.alloc(length);
    s.copy(out, 0, 0, Math.min(length, s.length));
    out.writeUInt32BE(length, 0);
    return out;
  });
  return message(bytes, sections);
}

/** `bytes` with section `n`'s length octets saying `length`, nothing else changed. */
function relabelled(bytes: Buffer, n: number, length: number): Buffer {
  const out = Buffer.from(bytes);
  for (let at = 16; at < out.length - 4; at += bytes.readUInt32BE(at))
    if (out[at + 4] === n) out.writeUInt32BE(length, at);
  return out;
}

function refusal(bytes: Uint8Array): string {
  try {
    readGrib2(bytes, NAME);
  } catch (error) {
    if (!(error instanceof Grib2Error)) throw error;
    return error.message;
  }
  throw new Error('expected a Grib2Error, but the file decoded');
}

const good = file();
const length7 = sectionsOf(good).find((s) => s[4] === 7)!.length;

it('the file the cases start from decodes', () => {
  expect(readGrib2(good, NAME)).toHaveLength(1);
});

const cases: Array<[string, () => Buffer, string | RegExp]> = [
  [
    'a file shorter than section 0',
    () => good.subarray(0, 10),
    'message 1: 10 bytes at byte 0 are too few for a section 0',
  ],
  [
    'bytes after a message too few for another section 0',
    () => Buffer.concat([good, Buffer.from('GRIB')]),
    `message 2: 4 bytes at byte ${good.length} are too few for a section 0`,
  ],
  [
    'a message length past the end of the file',
    () => {
      const out = Buffer.from(good);
      out.writeBigUInt64BE(BigInt(good.length + 1), 8);
      return out;
    },
    `message 1: length ${good.length + 1} runs past the end of the file (${good.length} bytes left)`,
  ],
  [
    'a message length of 2^64 - 1',
    () => {
      const out = Buffer.from(good);
      out.fill(0xff, 8, 16);
      return out;
    },
    /message 1: length \d+ runs past the end of the file \(\d+ bytes left\)/,
  ],
  [
    'a message length too short for sections 0 and 8',
    () => {
      const out = Buffer.from(good);
      out.writeBigUInt64BE(19n, 8);
      return out;
    },
    'message 1: length 19 is too short for sections 0 and 8',
  ],
  [
    'no "7777" at the message end',
    () => message(good, sectionsOf(good), '7778'),
    'message 1: does not end with "7777"',
  ],
  [
    'a section header that runs into "7777"',
    () => message(good, [...sectionsOf(good), Buffer.from([0, 0, 0])]),
    `message 1: section header at byte ${good.length - 4} runs into the end section`,
  ],
  [
    'a section length of 0',
    () => relabelled(good, 6, 0),
    'message 1: section 6 length 0 is shorter than its own header',
  ],
  [
    'a section length of 4',
    () => relabelled(good, 6, 4),
    'message 1: section 6 length 4 is shorter than its own header',
  ],
  [
    'a data section that runs into "7777"',
    () => relabelled(good, 7, length7 + 1),
    `message 1: section 7 length ${length7 + 1} runs past the message end`,
  ],
  [
    'a message that ends before a data section',
    () =>
      message(
        good,
        sectionsOf(good).filter((s) => s[4]! <= 4),
      ),
    'message 1: ends after section 4, before a data section',
  ],
  [
    'section 1 below 21 octets',
    () => resized(good, 1, 20),
    'message 1: section 1: length 20 is below the 21 octets it needs',
  ],
  [
    'section 3 below its header',
    () => resized(good, 3, 13),
    'message 1: section 3: length 13 is below its 14-octet header',
  ],
  [
    'section 3 longer than template 3.0',
    () => resized(good, 3, 73),
    'message 1: section 3: length 73 is not the 72 octets of template 3.0',
  ],
  [
    'section 4 below its header',
    () => resized(good, 4, 8),
    'message 1: section 4: length 8 is below its 9-octet header',
  ],
  [
    'section 4 longer than template 4.0',
    () => resized(good, 4, 35),
    'message 1: section 4: length 35 is not the 34 octets of template 4.0 with 0 coordinate values',
  ],
  [
    'section 5 below its header',
    () => resized(good, 5, 10),
    'message 1: section 5: length 10 is below its 11-octet header',
  ],
  [
    'section 5 longer than template 5.41',
    () => resized(good, 5, 22),
    'message 1: section 5: length 22 is not the 21 octets of template 5.41',
  ],
  [
    'section 6 below its header',
    () => resized(good, 6, 5),
    'message 1: section 6: length 5 is below its 6-octet header',
  ],
  [
    'section 6 "no bitmap" with more octets',
    () => resized(good, 6, 7),
    'message 1: section 6: length 7 for "no bitmap" is not 6',
  ],
  [
    'a bitmap shorter than the grid',
    () => resized(file({ bitmap: 'explicit' }), 6, 7),
    'message 1: section 6: bitmap of 1 octets is shorter than the 2 that 15 points need',
  ],
  [
    'simple-packed data shorter than its values',
    () => resized(file({ template: 0, bits: 12 }), 7, 5 + 22),
    'message 1: section 7: 22 octets of data are short of the 23 that 15 values of 12 bits need',
  ],
  [
    'a PNG cut inside section 7',
    () => resized(good, 7, length7 - 12),
    /message 1: section 7: PNG data ends inside a chunk header at byte \d+ \(no IEND\)/,
  ],
];

it.each(cases)('refuses %s with its own message', (_name, make, expected) => {
  const message = refusal(make());
  if (typeof expected === 'string') expect(message).toBe(`${NAME}: ${expected}`);
  else expect(message).toMatch(new RegExp(`^${NAME}: ${expected.source}$`));
});
