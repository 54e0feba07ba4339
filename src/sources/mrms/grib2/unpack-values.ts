/**
 * Packed integers to values: reads `bits`-wide big-endian unsigned integers one after another
 * (the layout of simple packing, and of PNG samples once unfiltered), scales each with
 * {@link ValueScaling} and spreads them over the grid points the bitmap marks present, in the
 * file's scan order. Absent points are NaN.
 */
import type { Bitmap } from './bitmap-section';
import type { ValueScaling } from './value-scaling';

/**
 * Values of `points` grid points in the file's order. The caller has checked that `packed`
 * holds at least `present` values of `bits` bits (present = bitmap.present, or `points`).
 */
export function unpackValues(
  packed: Uint8Array,
  bits: number,
  scaling: ValueScaling,
  points: number,
  bitmap: Bitmap | null,
): Float32Array {
  const out = new Float32Array(points);
  const { base, step } = scaling;
  const next = integerReader(packed, bits);
  if (bitmap === null) {
    if (bits === 16) {
      for (let k = 0, at = 0; k < points; k++, at += 2) {
        out[k] = base + step * ((packed[at]! << 8) | packed[at + 1]!);
      }
    } else if (bits === 8) {
      for (let k = 0; k < points; k++) out[k] = base + step * packed[k]!;
    } else {
      for (let k = 0; k < points; k++) out[k] = base + step * next();
    }
    return out;
  }
  const map = bitmap.bits;
  for (let k = 0; k < points; k++) {
    out[k] = (map[k >>> 3]! >>> (7 - (k & 7))) & 1 ? base + step * next() : NaN;
  }
  return out;
}

/** Sequential reader of `bits`-wide (0..32) big-endian unsigned integers from `bytes`. */
function integerReader(bytes: Uint8Array, bits: number): () => number {
  if (bits === 0) return () => 0;
  if (bits % 8 === 0) {
    const width = bits / 8;
    let at = 0;
    return () => {
      let value = 0;
      for (let b = 0; b < width; b++) value = value * 256 + bytes[at++]!;
      return value;
    };
  }
  let byteIndex = 0;
  let bitOffset = 0; // bits of bytes[byteIndex] already read, 0..7
  return () => {
    let value = 0;
    let remaining = bits;
    while (remaining > 0) {
      const available = 8 - bitOffset;
      const take = available < remaining ? available : remaining;
      const chunk = (bytes[byteIndex]! >>> (available - take)) & ((1 << take) - 1);
      value = value * (1 << take) + chunk;
      remaining -= take;
      bitOffset += take;
      if (bitOffset === 8) {
        bitOffset = 0;
        byteIndex++;
      }
    }
    return value;
  };
}

/** Bytes that `count` values of `bits` bits occupy. */
export function packedBytes(count: number, bits: number): number {
  return Math.ceil((count * bits) / 8);
}
