/**
 * Bounds-checked reads inside one GRIB2 section, addressed by the 1-based octet numbers of the
 * WMO tables (octet 1 is the first byte of the section), so parsing code reads like the
 * template it implements. A read that would leave the section fails with a {@link Grib2Error}
 * naming the section and octet instead of reading a neighbour's bytes or past the buffer.
 */
import type { Fail } from './grib2-error';

/** One section's bytes and the reads a template needs. */
export interface SectionView {
  /** Section number (0-8) for messages. */
  readonly number: number;
  /** Section length in octets. */
  readonly length: number;
  /** Unsigned integer of 1, 2 or 4 octets starting at `octet`. */
  uint(octet: number, octets: 1 | 2 | 4): number;
  /**
   * Signed integer of 1, 2 or 4 octets in GRIB2's sign-and-magnitude form (top bit is the
   * sign), which is how GRIB2 stores negative scale factors, latitudes and longitudes.
   */
  signed(octet: number, octets: 1 | 2 | 4): number;
  /** IEEE 754 single-precision float (big-endian) at octets `octet`..`octet + 3`. */
  float32(octet: number): number;
  /** True when every octet of the field is 0xff: GRIB2's "missing" value. */
  isMissing(octet: number, octets: 1 | 2 | 4): boolean;
  /** The octets from `octet` to the end of the section (a view, not a copy). */
  rest(octet: number): Uint8Array;
  /** Throws a {@link Grib2Error} about this section. */
  fail(problem: string): never;
}

/**
 * A view of `length` octets of `bytes` starting at `start`. The caller has already checked
 * that the section lies inside the message; this view checks every read against the section.
 */
export function sectionView(
  bytes: Uint8Array,
  start: number,
  length: number,
  number: number,
  fail: Fail,
): SectionView {
  const data = new DataView(bytes.buffer, bytes.byteOffset + start, length);
  const sectionFail = (problem: string): never => fail(`section ${number}: ${problem}`);
  const check = (octet: number, octets: number): number => {
    if (!Number.isInteger(octet) || octet < 1 || octet + octets - 1 > length) {
      sectionFail(`octets ${octet}-${octet + octets - 1} lie outside its ${length} octets`);
    }
    return octet - 1;
  };
  const uint = (octet: number, octets: 1 | 2 | 4): number => {
    const at = check(octet, octets);
    if (octets === 1) return data.getUint8(at);
    if (octets === 2) return data.getUint16(at);
    return data.getUint32(at);
  };
  return {
    number,
    length,
    uint,
    signed(octet, octets) {
      const raw = uint(octet, octets);
      const signBit = 2 ** (8 * octets - 1);
      return raw >= signBit ? -(raw - signBit) : raw;
    },
    float32(octet) {
      return data.getFloat32(check(octet, 4));
    },
    isMissing(octet, octets) {
      return uint(octet, octets) === 2 ** (8 * octets) - 1;
    },
    rest(octet) {
      if (!Number.isInteger(octet) || octet < 1 || octet > length + 1) {
        sectionFail(`octet ${octet} lies outside its ${length} octets`);
      }
      return bytes.subarray(start + octet - 1, start + length);
    },
    fail: sectionFail,
  };
}
