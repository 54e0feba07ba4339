/**
 * Section 6 (bitmap): which grid points carry a value. Indicator 255 means every point does,
 * 0 means a bitmap follows (one bit per point in the file's scan order, 1 = present), 254
 * reuses the last bitmap defined earlier in the same message. Predefined bitmaps (1-253) are
 * not supported.
 */
import type { SectionView } from './section-view';

/** A bitmap over `points` points, with how many of them are present. */
export interface Bitmap {
  readonly bits: Uint8Array;
  readonly present: number;
}

/**
 * Reads section 6 for a grid of `points` points. Returns null when every point is present;
 * `previous` is the bitmap indicator 254 refers to (null when the message defined none).
 */
export function readBitmap(
  section: SectionView,
  points: number,
  previous: Bitmap | null,
): Bitmap | null {
  if (section.length < 6) section.fail(`length ${section.length} is below its 6-octet header`);
  const indicator = section.uint(6, 1);
  if (indicator === 255) {
    if (section.length !== 6) section.fail(`length ${section.length} for "no bitmap" is not 6`);
    return null;
  }
  if (indicator === 254) {
    if (previous === null)
      section.fail('indicator 254 refers to a bitmap this message never defined');
    if (previous.bits.length * 8 < points) {
      section.fail(`the earlier bitmap covers fewer than this grid's ${points} points`);
    }
    return { bits: previous.bits, present: countPresent(previous.bits, points) };
  }
  if (indicator !== 0) section.fail(`predefined bitmap ${indicator} is not supported`);
  const bits = section.rest(7);
  const needed = Math.ceil(points / 8);
  if (bits.length < needed) {
    section.fail(
      `bitmap of ${bits.length} octets is shorter than the ${needed} that ${points} points need`,
    );
  }
  return { bits: bits.subarray(0, needed), present: countPresent(bits, points) };
}

/** Number of 1 bits among the first `points` bits of `bits`. */
function countPresent(bits: Uint8Array, points: number): number {
  let present = 0;
  const whole = points >>> 3;
  for (let i = 0; i < whole; i++) present += POPCOUNT[bits[i]!]!;
  const tail = points & 7;
  if (tail !== 0) present += POPCOUNT[bits[whole]! & (0xff << (8 - tail)) & 0xff]!;
  return present;
}

const POPCOUNT = (() => {
  const table = new Uint8Array(256);
  for (let n = 1; n < 256; n++) table[n] = (n & 1) + table[n >>> 1]!;
  return table;
})();
