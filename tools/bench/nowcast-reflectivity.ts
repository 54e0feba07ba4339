/**
 * Reflectivity frames for the nowcast publishing benchmark, made from a real MRMS
 * precipitation-rate sequence (the producer renders reflectivity only): each rate R (mm/h)
 * becomes dBZ by Marshall-Palmer, Z = 200 R^1.6 (0 mm/h: -99, covered without echo; no
 * coverage or missing: -999), written back into the file's own GRIB2 sections as
 * ReflectivityAtLowestAltitude (209/3/57), PNG-packed (template 5.41) like NOAA's files,
 * gzipped and named as NOAA names them. The storms, their motion and the grid stay the real
 * ones; only the unit changes.
 */
import { readFile } from 'node:fs/promises';
import { deflateSync, gzipSync } from 'node:zlib';
import { crc32 } from '../../src/shared/crc32';
import { readGrib2 } from '../../src/sources/mrms/grib2/read-grib2';
import { sectionOffsets } from '../../test/fixtures/grib2-encoder';

/** Marshall-Palmer dBZ of a rate, MRMS's markers for no echo and no coverage. */
export function rateToDbz(rate: number): number {
  if (!(rate >= 0)) return -999; // -3 no coverage, -1 missing, NaN
  if (rate === 0) return -99;
  return 10 * Math.log10(200) + 16 * Math.log10(rate);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out, 4, 8 + data.length) >>> 0, 8 + data.length);
  return out;
}

/** A 16-bit grey PNG of `integers` (row-major, `width` per row). */
function png16(integers: Uint16Array, width: number, height: number): Buffer {
  const raw = Buffer.alloc(height * (1 + 2 * width));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + 2 * width);
    for (let x = 0; x < width; x++) raw.writeUInt16BE(integers[y * width + x]!, row + 1 + 2 * x);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 16;
  header[9] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The reflectivity file made of the rate file at `file`, gzipped. */
export async function reflectivityFromRate(file: string, name: string): Promise<Buffer> {
  const original = await readFile(file);
  const [field] = readGrib2(original, name);
  if (!field) throw new Error(`${name}: no field`);
  const { width, height } = field.grid;
  const offsets = sectionOffsets(original);
  const s4 = offsets.get(4)!;
  const s5 = offsets.get(5)!;
  const s6 = offsets.get(6)!;
  if (original[s6 + 5] !== 255) throw new Error(`${name}: a bitmap is not supported here`);
  // Y = (R + X) / 10: R = -9990, E = 0, D = 1, 16 bits.
  const integers = new Uint16Array(width * height);
  for (let i = 0; i < integers.length; i++)
    integers[i] = Math.round(rateToDbz(field.values[i]!) * 10 + 9990);
  const head = Buffer.from(original.subarray(0, s6));
  head[s4 + 9] = 3; // parameter category: reflectivity
  head[s4 + 10] = 57; // ReflectivityAtLowestAltitude
  head.writeUInt16BE(41, s5 + 9);
  head.writeFloatBE(-9990, s5 + 11);
  head.writeUInt16BE(0, s5 + 15);
  head.writeUInt16BE(1, s5 + 17);
  head[s5 + 19] = 16;
  head[s5 + 20] = 0;
  const bitmap = Buffer.from(original.subarray(s6, s6 + original.readUInt32BE(s6)));
  const image = png16(integers, width, height);
  const data = Buffer.alloc(5 + image.length);
  data.writeUInt32BE(data.length, 0);
  data[4] = 7;
  image.copy(data, 5);
  const bytes = Buffer.concat([head, bitmap, data, Buffer.from('7777', 'latin1')]);
  bytes.writeBigUInt64BE(BigInt(bytes.length), 8);
  return gzipSync(bytes, { level: 6 });
}
