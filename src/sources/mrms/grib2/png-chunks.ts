/**
 * The PNG container as GRIB2 template 5.41 embeds it: signature, chunks with their lengths and
 * CRCs checked, the IHDR header, and the compressed image data (IDAT) as views into the input.
 * Nothing is inflated or allocated by size here; the caller compares the header with the grid
 * first.
 */
import { PNG_SIGNATURE } from '../../../palette/png-chunk-writer';
import { crc32 } from '../../../shared/crc32';
import type { Fail } from './grib2-error';

/** IHDR fields. */
export interface PngHeader {
  readonly width: number;
  readonly height: number;
  readonly bitDepth: number;
  readonly colourType: number;
  readonly interlace: number;
}

/** A parsed PNG: its header and its IDAT payloads in order. */
export interface PngContainer {
  readonly header: PngHeader;
  readonly imageData: readonly Uint8Array[];
}

const MAX_CHUNK_LENGTH = 0x7fffffff;

/** Walks the chunks of `png`; every problem fails with the chunk and offset involved. */
export function readPngChunks(png: Uint8Array, fail: Fail): PngContainer {
  const view = new DataView(png.buffer, png.byteOffset, png.length);
  if (png.length < PNG_SIGNATURE.length || PNG_SIGNATURE.some((b, i) => png[i] !== b)) {
    fail('PNG data does not start with the PNG signature');
  }
  let header: PngHeader | null = null;
  const imageData: Uint8Array[] = [];
  let at = PNG_SIGNATURE.length;
  for (;;) {
    if (at + 12 > png.length) fail(`PNG data ends inside a chunk header at byte ${at} (no IEND)`);
    const length = view.getUint32(at);
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    if (!/^[A-Za-z]{4}$/.test(type)) fail(`PNG chunk at byte ${at} has no valid type`);
    if (length > MAX_CHUNK_LENGTH || at + 12 + length > png.length) {
      fail(`PNG chunk ${type} length ${length} at byte ${at} runs past the end of the PNG data`);
    }
    const dataStart = at + 8;
    const dataEnd = dataStart + length;
    if (crc32(png, at + 4, dataEnd) !== view.getUint32(dataEnd)) {
      fail(`PNG chunk ${type} at byte ${at} fails its CRC check`);
    }
    if (header === null && type !== 'IHDR') fail(`PNG starts with chunk ${type}, not IHDR`);
    if (type === 'IHDR') {
      if (header !== null) fail('PNG has a second IHDR chunk');
      if (length !== 13) fail(`PNG IHDR length ${length} is not 13`);
      header = {
        width: view.getUint32(dataStart),
        height: view.getUint32(dataStart + 4),
        bitDepth: png[dataStart + 8]!,
        colourType: png[dataStart + 9]!,
        interlace: png[dataStart + 12]!,
      };
      if (png[dataStart + 10] !== 0 || png[dataStart + 11] !== 0) {
        fail('PNG IHDR names an unknown compression or filter method');
      }
    } else if (type === 'IDAT') {
      imageData.push(png.subarray(dataStart, dataEnd));
    } else if (type === 'IEND') {
      break;
    } else if (type !== 'PLTE' && (png[at + 4]! & 0x20) === 0) {
      // Lower-case first letter = ancillary (skipped); an unknown critical chunk cannot be.
      fail(`PNG has an unknown critical chunk ${type}`);
    }
    at = dataEnd + 4;
  }
  if (header === null) fail('PNG has no IHDR chunk');
  if (imageData.length === 0) fail('PNG has no IDAT chunk');
  return { header, imageData };
}
