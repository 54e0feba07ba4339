/**
 * Measures the PNG decoders considered for GRIB2 template 5.41 on a real MRMS file: pngjs (a
 * dependency already), fast-png (when given), and the reader's own minimal decoder. Each runs
 * in its own child process, so its peak RSS is its own; every decoder's samples are compared
 * with the minimal decoder's. A measuring tool, not a test: figures go to docs/mrms.md.
 *
 *   npx tsx tools/mrms/png-decoders.ts <file.grib2[.gz]> [--fast-png <dir of fast-png>] [--runs N]
 *
 * fast-png is not a dependency; to measure it, install it anywhere (`npm install fast-png` in a
 * scratch directory) and pass its package directory.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { PNG } from 'pngjs';
import { failFor } from '../../src/sources/mrms/grib2/grib2-error';
import { decodePngSamples } from '../../src/sources/mrms/grib2/png-samples';
import { readGrib2 } from '../../src/sources/mrms/grib2/read-grib2';

type Decoder = 'minimal' | 'pngjs' | 'fast-png' | 'readGrib2';

/** The PNG of the first data section, its pixel count and the template's bits per value. */
function embeddedPng(file: string): { png: Uint8Array; pixels: number; bits: number } {
  let bytes: Uint8Array = readFileSync(file);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  let at = 16;
  let pixels = 0;
  let bits = 0;
  for (;;) {
    const length = view.getUint32(at);
    const number = bytes[at + 4];
    if (number === 5) {
      pixels = view.getUint32(at + 5);
      bits = bytes[at + 19]!;
    }
    if (number === 7) return { png: bytes.subarray(at + 5, at + length), pixels, bits };
    at += length;
  }
}

/** Big-endian packed samples from one channel of a decoded image, for comparing decoders. */
function packSamples(channel: ArrayLike<number>, pixels: number, stride: number, bits: number) {
  const out = Buffer.alloc(pixels * (bits / 8));
  for (let i = 0; i < pixels; i++) {
    if (bits === 16) out.writeUInt16BE(channel[i * stride]!, i * 2);
    else out[i] = channel[i * stride]!;
  }
  return out;
}

/** A decoder ready to run: everything but the decoding itself is done beforehand. */
async function prepare(decoder: Decoder, file: string, fastPngDir?: string): Promise<() => Buffer> {
  const { png, pixels, bits } = embeddedPng(file);
  if (decoder === 'readGrib2') {
    const input = readFileSync(file);
    return () => Buffer.from(readGrib2(input, path.basename(file))[0]!.values.buffer);
  }
  if (decoder === 'fast-png') {
    if (!fastPngDir) throw new Error('--fast-png <dir> is required for fast-png');
    const entry = pathToFileURL(path.join(fastPngDir, 'lib', 'index.js')).href;
    const fastPng = (await import(entry)) as {
      decode(data: Uint8Array): { data: ArrayLike<number>; channels: number };
    };
    return () => {
      const image = fastPng.decode(png);
      return packSamples(image.data, pixels, image.channels, bits);
    };
  }
  return () => decodeOnce(decoder, png, pixels, bits, file);
}

function decodeOnce(
  decoder: Decoder,
  png: Uint8Array,
  pixels: number,
  bits: number,
  file: string,
): Buffer {
  if (decoder === 'minimal') {
    return Buffer.from(decodePngSamples(png, pixels, bits, failFor(file)).samples);
  }
  const image = PNG.sync.read(Buffer.from(png), { skipRescale: true });
  return packSamples(image.data as unknown as ArrayLike<number>, pixels, 4, bits);
}

/** Child mode: decode `runs` times, print one JSON line of figures. */
async function child(decoder: Decoder, file: string, runs: number, fastPngDir?: string) {
  const decode = await prepare(decoder, file, fastPngDir);
  const baselineRssMiB = process.memoryUsage().rss / 2 ** 20;
  const walls: number[] = [];
  const cpus: number[] = [];
  let digest = '';
  for (let run = 0; run < runs; run++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const samples = decode();
    walls.push(performance.now() - t0);
    const cpu = process.cpuUsage(cpu0);
    cpus.push((cpu.user + cpu.system) / 1000);
    digest = createHash('sha256').update(samples).digest('hex').slice(0, 16);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const peakRssMiB = process.resourceUsage().maxRSS / 1024;
  const figures = {
    decoder,
    wallMs: median(walls),
    cpuMs: median(cpus),
    baselineRssMiB,
    peakRssMiB,
    digest,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

async function main() {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const file = args[0];
  if (!file)
    throw new Error('usage: png-decoders.ts <file.grib2[.gz]> [--fast-png dir] [--runs N]');
  const runs = Number(option('--runs') ?? '3');
  const fastPngDir = option('--fast-png');
  const only = option('--child') as Decoder | undefined;
  if (only) return child(only, file, runs, fastPngDir);

  const decoders: Decoder[] = [
    'minimal',
    'pngjs',
    ...(fastPngDir ? ['fast-png' as const] : []),
    'readGrib2',
  ];
  const rows = decoders.map((decoder) => {
    const out = execFileSync(
      process.execPath,
      [...process.execArgv, __filename, ...args, '--child', decoder],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    return JSON.parse(out.trim().split('\n').pop()!) as Record<string, string | number>;
  });
  const reference = rows[0]!.digest;
  process.stdout.write(
    `${path.basename(file)}, median of ${runs} runs, each decoder in its own process\n`,
  );
  process.stdout.write(
    '| decoder | wall ms | CPU ms | peak RSS MiB (before decoding) | same samples as the minimal decoder |\n|---|---|---|---|---|\n',
  );
  for (const row of rows) {
    const same =
      row.decoder === 'readGrib2' ? 'n/a (values)' : row.digest === reference ? 'yes' : 'NO';
    process.stdout.write(
      `| ${row.decoder} | ${Math.round(Number(row.wallMs))} | ${Math.round(Number(row.cpuMs))} | ${Math.round(Number(row.peakRssMiB))} (${Math.round(Number(row.baselineRssMiB))}) | ${same} |\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
