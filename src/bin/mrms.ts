/**
 * MRMS producer (`npm run mrms`): real NOAA radar as archives.
 *
 * - `npm run mrms -- --file <grib2[.gz]> --out <dir>` converts one file to
 *   `<dir>/{YYYYMMDDHHmm}.pmtiles` (the GRIB2 valid time, UTC, to the minute), written
 *   atomically, and exits (1 when the file is not valid GRIB2 or not reflectivity).
 * - `npm run mrms` follows `MRMS_SOURCE` (NOAA's bucket by default) and publishes every new
 *   file once into the configured archive store (`S3_*` or `RADAR_DATA_DIR`), with the leader
 *   lease in Redis when `REDIS_URL` is set, and metrics on `ADMIN_PORT`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createDirectorySink } from '../adapters/fs/frame-sink';
import { loadConfig } from '../config';
import { exitStartFailure, parseCommandLine } from './command-line';
import { createLogger } from '../logger';
import { Grib2Error } from '../sources/mrms/grib2/grib2-error';
import { convertMrmsFile, mrmsArchiveFacts } from '../sources/mrms/mrms-frame';
import { MrmsProductError } from '../sources/mrms/mrms-grid';
import { MRMS_LIMITS } from '../sources/mrms/mrms-settings';
import { integerFlag } from '../sim/limits';
import { onFatalErrors, onSignals } from '../wiring/lifecycle';
import { buildMrmsProducer } from '../wiring/mrms';

const USAGE = `usage: mrms --file FILE [--out DIR] [--max-zoom Z]
       mrms

  --file FILE    convert one MRMS GRIB2 file (.grib2 or .grib2.gz) and exit
  --out DIR      where --file writes {YYYYMMDDHHmm}.pmtiles (default ./data)
  --max-zoom Z   deepest zoom of --file, ${MRMS_LIMITS.maxZoom.min}..${MRMS_LIMITS.maxZoom.max} (default ${MRMS_LIMITS.maxZoom.default})

Without --file: follows MRMS_SOURCE (default NOAA's bucket noaa-mrms-pds) and publishes each
new file once into the archive store (S3_* or RADAR_DATA_DIR); see docs/mrms.md.
`;

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      file: { type: 'string' },
      out: { type: 'string', default: './data' },
      'max-zoom': { type: 'string', default: String(MRMS_LIMITS.maxZoom.default) },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  const maxZoom = integerFlag('max-zoom', values['max-zoom'], MRMS_LIMITS.maxZoom);
  return { help: values.help, file: values.file, out: values.out, maxZoom };
}

/** `--file`: one conversion in this process, written atomically. */
async function convertOne(file: string, out: string, maxZoom: number): Promise<number> {
  const began = performance.now();
  const name = path.basename(file);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    process.stderr.write(`mrms: cannot read ${file}: ${(error as Error).message}\n`);
    return 1;
  }
  let archive: Buffer;
  try {
    archive = convertMrmsFile({ name, bytes }, { maxZoom });
  } catch (error) {
    if (error instanceof Grib2Error || error instanceof MrmsProductError) {
      process.stderr.write(`mrms: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const { timestamp, validTimeMs } = mrmsArchiveFacts(archive);
  const sink = createDirectorySink(out);
  const existed = await sink.has(timestamp);
  await sink.put(timestamp, archive);
  const target = path.join(out, `${timestamp}.pmtiles`);
  const seconds = ((performance.now() - began) / 1000).toFixed(2);
  process.stderr.write(
    existed
      ? `${target} already exists: left untouched (converted in ${seconds} s)\n`
      : `wrote ${target}: ${(archive.length / 1024).toFixed(0)} KiB, valid ${new Date(validTimeMs).toISOString()}, ${seconds} s\n`,
  );
  return 0;
}

async function main(): Promise<void> {
  const args = parseCommandLine(process.argv.slice(2), parse, USAGE);
  if (args === undefined) return;
  if (args.file !== undefined) {
    process.exitCode = await convertOne(args.file, args.out, args.maxZoom);
    return;
  }
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel, { service: 'radar-mrms' });
  const producer = await buildMrmsProducer(config, { logger });
  onFatalErrors({ logger, shutdown: producer.shutdown, deadlineMs: 30_000 });
  onSignals(producer.shutdown);
}

main().catch((error: unknown) =>
  exitStartFailure(error, (failure) => `mrms: ${failure.stack ?? failure.message}`),
);
