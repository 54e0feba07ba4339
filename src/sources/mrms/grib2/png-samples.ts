/**
 * The PNG of data representation template 5.41, decoded to its packed integers: a minimal
 * decoder for exactly the PNG shapes GRIB2 writes (greyscale 8 or 16 bits, RGB 8-bit for
 * 24-bit values, RGBA 8-bit for 32-bit values; never interlaced). Chunk lengths and CRCs are
 * checked, and the image size is compared with the grid before the image data is inflated,
 * which is bounded to exactly the size the header allows. Node's zlib does the inflating;
 * docs/mrms.md says why this is not pngjs or fast-png (speed, measured).
 */
import { inflateSync } from 'node:zlib';
import type { Fail } from './grib2-error';
import { readPngChunks, type PngHeader } from './png-chunks';
import { unfilterScanlines } from './png-unfilter';

/** Bits per pixel of each supported (colour type, bit depth) pair. */
function pixelBits(header: PngHeader): number | null {
  if (header.colourType === 0 && (header.bitDepth === 8 || header.bitDepth === 16)) {
    return header.bitDepth;
  }
  if (header.colourType === 2 && header.bitDepth === 8) return 24;
  if (header.colourType === 6 && header.bitDepth === 8) return 32;
  return null;
}

/** Decoded PNG samples: `pixels` values of `bits` bits each, big-endian, contiguous. */
export interface PngSamples {
  readonly samples: Uint8Array;
  readonly bits: number;
}

/**
 * Decodes the PNG in `png`, which must hold exactly `pixels` pixels whose width rounds the
 * template's `templateBits` up to whole bytes (a 12-bit field is a 16-bit PNG).
 */
export function decodePngSamples(
  png: Uint8Array,
  pixels: number,
  templateBits: number,
  fail: Fail,
): PngSamples {
  const { header, imageData } = readPngChunks(png, fail);
  const bits = pixelBits(header);
  if (bits === null) {
    fail(`PNG colour type ${header.colourType} at ${header.bitDepth} bits is not a GRIB2 shape`);
  }
  if (header.interlace !== 0) fail('interlaced PNG is not supported');
  if (Math.ceil(templateBits / 8) * 8 !== bits) {
    fail(`PNG of ${bits}-bit pixels disagrees with the template's ${templateBits} bits per value`);
  }
  if (header.width === 0 || header.height === 0 || header.width * header.height !== pixels) {
    fail(
      `PNG of ${header.width} x ${header.height} pixels disagrees with the ${pixels} values to decode`,
    );
  }
  const pixelBytes = bits / 8;
  const rowBytes = header.width * pixelBytes;
  const expected = header.height * (rowBytes + 1);
  const compressed = imageData.length === 1 ? imageData[0]! : Buffer.concat(imageData);
  let inflated: Buffer;
  try {
    inflated = inflateSync(compressed, { maxOutputLength: expected });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') {
      fail(
        `PNG image data inflates past the ${expected} bytes its ${header.width} x ${header.height} size allows`,
      );
    }
    fail(`PNG image data does not inflate: ${(error as Error).message}`);
  }
  if (inflated.length !== expected) {
    fail(`PNG image data inflates to ${inflated.length} bytes, not the ${expected} its size needs`);
  }
  // A plain Uint8Array view: the loops below index it millions of times, and a Buffer made by
  // another realm (as under a test runner's VM context) is many times slower to index there.
  const raw = new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.length);
  return { samples: unfilterScanlines(raw, header.height, rowBytes, pixelBytes, fail), bits };
}
