/**
 * Minimal encoder for palette (colour type 3) PNGs. Radar tiles use at most 16 colours, so a
 * 4-bit indexed PNG is several times smaller and faster to deflate than the RGBA that pngjs
 * can write (pngjs only decodes palette images; tests decode ours with it).
 */
import { deflateSync } from 'node:zlib';
import type { Rgba } from './colour-schemes';
import { paletteChunks, pngChunk, PNG_SIGNATURE } from './png-chunk-writer';

/** Bit depths allowed for colour type 3. */
export type IndexedBitDepth = 1 | 2 | 4 | 8;

/** Encodes images that share one palette. */
export interface IndexedPngEncoder {
  /**
   * PNG bytes of a `width` x `height` image whose `scanlines` are already in PNG layout: per
   * row one filter-type byte (0 = none) followed by `ceil(width * bitDepth / 8)` bytes of
   * packed palette indices, most significant bits first. Callers pack directly into this
   * layout so a tile is not walked twice.
   */
  encode(width: number, height: number, bitDepth: IndexedBitDepth, scanlines: Uint8Array): Buffer;
}

/** Options of {@link createIndexedPngEncoder}. */
export interface IndexedPngOptions {
  /** zlib level 0..9; the default trades a few percent of size for speed. */
  readonly level?: number;
}

/**
 * Creates an encoder for `palette` (RGBA per index, at most 256 entries). The PLTE and tRNS
 * chunks are built once here because every tile of every frame repeats them.
 */
export function createIndexedPngEncoder(
  palette: readonly Rgba[],
  options: IndexedPngOptions = {},
): IndexedPngEncoder {
  if (palette.length === 0 || palette.length > 256) {
    throw new RangeError(`palette needs 1..256 entries, got ${palette.length}`);
  }
  const level = options.level ?? 6;
  const { plte, trns } = paletteChunks(palette);
  const iend = pngChunk('IEND', new Uint8Array(0));

  return {
    encode(width, height, bitDepth, scanlines) {
      const rowBytes = 1 + Math.ceil((width * bitDepth) / 8);
      if (scanlines.length !== rowBytes * height) {
        throw new RangeError(
          `scanlines hold ${scanlines.length} bytes, expected ${rowBytes * height}`,
        );
      }
      if (palette.length > 2 ** bitDepth) {
        throw new RangeError(`${palette.length} palette entries do not fit ${bitDepth} bits`);
      }
      const ihdr = Buffer.alloc(13);
      ihdr.writeUInt32BE(width, 0);
      ihdr.writeUInt32BE(height, 4);
      ihdr[8] = bitDepth;
      ihdr[9] = 3; // colour type: palette
      // bytes 10..12: compression 0, filter method 0, interlace none
      const idat = pngChunk('IDAT', deflateSync(scanlines, { level }));
      return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), plte, trns, idat, iend]);
    },
  };
}
