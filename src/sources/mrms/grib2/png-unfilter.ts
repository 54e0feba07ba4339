/**
 * PNG scanline unfiltering (filter method 0: None, Sub, Up, Average, Paeth) done in place on
 * the inflated image data, which is then compacted so the samples of all rows are contiguous
 * (the filter-type byte of each row dropped). One pass, no second image-sized buffer.
 */
import type { Fail } from './grib2-error';

/**
 * Unfilters `raw` (`rows` x (1 + `rowBytes`) bytes) with `pixelBytes` bytes per pixel and
 * returns the first `rows * rowBytes` bytes of it, now the plain samples.
 */
export function unfilterScanlines(
  raw: Uint8Array,
  rows: number,
  rowBytes: number,
  pixelBytes: number,
  fail: Fail,
): Uint8Array {
  const stride = rowBytes + 1;
  for (let y = 0; y < rows; y++) {
    const filter = raw[y * stride]!;
    const cur = y * stride + 1;
    // The previous row is already unfiltered and compacted at (y - 1) * rowBytes.
    const prev = (y - 1) * rowBytes;
    const hasPrev = y > 0;
    switch (filter) {
      case 0:
        break;
      case 1:
        for (let i = pixelBytes; i < rowBytes; i++) {
          raw[cur + i] = (raw[cur + i]! + raw[cur + i - pixelBytes]!) & 0xff;
        }
        break;
      case 2:
        if (hasPrev) {
          for (let i = 0; i < rowBytes; i++) raw[cur + i] = (raw[cur + i]! + raw[prev + i]!) & 0xff;
        }
        break;
      case 3:
        for (let i = 0; i < rowBytes; i++) {
          const left = i >= pixelBytes ? raw[cur + i - pixelBytes]! : 0;
          const up = hasPrev ? raw[prev + i]! : 0;
          raw[cur + i] = (raw[cur + i]! + ((left + up) >>> 1)) & 0xff;
        }
        break;
      case 4:
        for (let i = 0; i < rowBytes; i++) {
          const left = i >= pixelBytes ? raw[cur + i - pixelBytes]! : 0;
          const up = hasPrev ? raw[prev + i]! : 0;
          const upLeft = hasPrev && i >= pixelBytes ? raw[prev + i - pixelBytes]! : 0;
          // |p - x| without Math.abs, which some embeddings (VM contexts) fail to inline.
          const p = left + up - upLeft;
          let pa = p - left;
          if (pa < 0) pa = -pa;
          let pb = p - up;
          if (pb < 0) pb = -pb;
          let pc = p - upLeft;
          if (pc < 0) pc = -pc;
          const predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
          raw[cur + i] = (raw[cur + i]! + predictor) & 0xff;
        }
        break;
      default:
        fail(`PNG row ${y} uses unknown filter type ${filter}`);
    }
    raw.copyWithin(y * rowBytes, cur, cur + rowBytes);
  }
  return raw.subarray(0, rows * rowBytes);
}
