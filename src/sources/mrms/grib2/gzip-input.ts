/**
 * Gzip-compressed input, recognised by its magic bytes (NOAA publishes MRMS as .grib2.gz) and
 * inflated with a cap on the output, so a gzip bomb fails after at most `maxBytes` bytes.
 */
import { gunzipSync } from 'node:zlib';
import type { Fail } from './grib2-error';

/** True when `bytes` starts with the gzip magic (1f 8b). */
function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** `bytes` inflated when gzip-compressed (at most `maxBytes` bytes), otherwise as given. */
export function inflateIfGzip(bytes: Uint8Array, maxBytes: number, fail: Fail): Uint8Array {
  if (!isGzip(bytes)) return bytes;
  try {
    return gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      fail(`gzip data inflates past the reader's cap of ${maxBytes} bytes`);
    }
    return fail(`gzip data is corrupt: ${(error as Error).message}`);
  }
}
