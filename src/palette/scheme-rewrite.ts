/**
 * Serving a tile in another colour scheme: the tiles are palette PNGs, so another scheme is
 * another PLTE chunk (and tRNS chunk) around the same compressed pixels. The rewrite walks the
 * chunk list, checks that the tile's palette is the one the renderer writes (so index i really
 * means the i-th dBZ step), and copies every other chunk byte for byte: IDAT is never inflated,
 * no CRC but the new chunks' is computed, and the replacement chunks are built once per
 * palette size when the rewrite is created. Pure `Uint8Array` code: the server rewrites tiles
 * with it, and the viewer swaps palettes with it in the browser.
 */
import { paletteChunks, PNG_SIGNATURE } from './png-chunk-writer';
import type { Rgba } from './colour-schemes';

/** A tile that is not a palette PNG in the expected palette: the rewrite cannot keep its promise. */
export class PaletteMismatchError extends Error {
  constructor(message: string) {
    super(`tile palette: ${message}`);
    this.name = 'PaletteMismatchError';
  }
}

/** Rewrites one PNG; throws {@link PaletteMismatchError} for a PNG it must not recolour. */
export type PaletteRewrite = (png: Uint8Array) => Uint8Array;

/** Chunk types as big-endian 32-bit numbers, compared without making strings. */
const IHDR = 0x49484452;
const PLTE = 0x504c5445;
const TRNS = 0x74524e53;
const IDAT = 0x49444154;
const IEND = 0x49454e44;

interface Replacement {
  /** The expected PLTE data of a palette of this size. */
  readonly plteData: Uint8Array;
  /** The new PLTE chunk, and the new tRNS chunk (empty when every entry is opaque). */
  readonly plte: Uint8Array;
  readonly trns: Uint8Array;
}

function replacement(from: readonly Rgba[], to: readonly Rgba[], n: number): Replacement {
  const plteData = new Uint8Array(from.slice(0, n).flatMap(([r, g, b]) => [r, g, b]));
  return { plteData, ...paletteChunks(to.slice(0, n)) };
}

const u32 = (b: Uint8Array, at: number): number =>
  ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;

/**
 * A rewrite from palette `from` (what the tiles hold) to palette `to` (index for index the
 * same meaning). A PNG is rewritten only when it is colour type 3 and its PLTE and tRNS say
 * exactly `from`'s first n entries (n <= `from.length`, as the renderer may write a shorter
 * palette, e.g. the one-entry transparent tile); anything else, a foreign or damaged PNG
 * included, throws {@link PaletteMismatchError}. `alloc` makes the output buffer (Node passes
 * `Buffer.allocUnsafeSlow`, so the result is a `Buffer` with a memory block of its own).
 */
export function createPaletteRewrite(
  from: readonly Rgba[],
  to: readonly Rgba[],
  alloc: (size: number) => Uint8Array = (size) => new Uint8Array(size),
): PaletteRewrite {
  if (from.length === 0 || from.length > 256 || to.length !== from.length)
    throw new RangeError(`palettes of 1..256 entries and equal size needed`);
  const byEntries: Replacement[] = [];
  for (let n = 1; n <= from.length; n++) byEntries[n] = replacement(from, to, n);
  const fromAlpha = from.map(([, , , a]) => a);

  return (png) => {
    const size = png.length;
    if (size < 33) throw new PaletteMismatchError('not a PNG');
    for (let i = 0; i < 8; i++)
      if (png[i] !== PNG_SIGNATURE[i]) throw new PaletteMismatchError('not a PNG');
    if (u32(png, 8) !== 13 || u32(png, 12) !== IHDR)
      throw new PaletteMismatchError('IHDR is not the first chunk');
    const bitDepth = png[24]!;
    if (png[25] !== 3) throw new PaletteMismatchError(`colour type ${png[25]}, not a palette`);
    let pos = 8;
    let plteAt = -1;
    let plteEnd = -1;
    let trnsAt = -1;
    let trnsEnd = -1;
    let entries = 0;
    let idat = false;
    let end = -1;
    while (end < 0) {
      if (pos + 12 > size) throw new PaletteMismatchError('truncated before IEND');
      const length = u32(png, pos);
      const type = u32(png, pos + 4);
      const next = pos + 12 + length;
      if (length > 0x7fffffff || next > size) throw new PaletteMismatchError('chunk past the end');
      if (type === PLTE) {
        if (plteAt >= 0 || idat) throw new PaletteMismatchError('PLTE repeated or after IDAT');
        entries = length / 3;
        const limit = Math.min(from.length, 2 ** bitDepth);
        if (!Number.isInteger(entries) || entries < 1 || entries > limit)
          throw new PaletteMismatchError(`a PLTE of ${length} bytes`);
        const expected = byEntries[entries]!.plteData;
        for (let i = 0; i < length; i++)
          if (png[pos + 8 + i] !== expected[i]) throw new PaletteMismatchError('another palette');
        plteAt = pos;
        plteEnd = next;
      } else if (type === TRNS) {
        if (plteAt < 0 || trnsAt >= 0 || idat || length > entries)
          throw new PaletteMismatchError('tRNS out of place');
        trnsAt = pos;
        trnsEnd = next;
      } else if (type === IDAT) {
        if (plteAt < 0) throw new PaletteMismatchError('IDAT before PLTE');
        idat = true;
      } else if (type === IEND) {
        end = next;
      } else if (type === IHDR && pos !== 8) {
        throw new PaletteMismatchError('IHDR repeated');
      }
      pos = next;
    }
    if (!idat) throw new PaletteMismatchError('no IDAT');
    if (end !== size) throw new PaletteMismatchError('bytes after IEND');
    // Entries without a tRNS byte are opaque; every alpha must be the source palette's.
    const alphas = trnsAt >= 0 ? u32(png, trnsAt) : 0;
    for (let i = 0; i < entries; i++) {
      const alpha = i < alphas ? png[trnsAt + 8 + i]! : 255;
      if (alpha !== fromAlpha[i]) throw new PaletteMismatchError('another transparency');
    }

    const { plte, trns } = byEntries[entries]!;
    const trnsLength = trnsAt >= 0 ? trnsEnd - trnsAt : 0;
    const out = alloc(size - (plteEnd - plteAt) - trnsLength + plte.length + trns.length);
    // Signature and chunks up to PLTE; the new PLTE and tRNS; the rest without the old tRNS.
    out.set(png.subarray(0, plteAt), 0);
    let at = plteAt;
    out.set(plte, at);
    at += plte.length;
    out.set(trns, at);
    at += trns.length;
    if (trnsAt < 0) {
      out.set(png.subarray(plteEnd), at);
    } else {
      out.set(png.subarray(plteEnd, trnsAt), at);
      at += trnsAt - plteEnd;
      out.set(png.subarray(trnsEnd), at);
    }
    return out;
  };
}
