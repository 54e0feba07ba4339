/**
 * MRMS producer (`npm run mrms`): real NOAA radar as archives.
 *
 * - `npm run mrms -- --file <grib2[.gz]> --out <dir>` converts one file to
 *   `<dir>/{YYYYMMDDHHmm}.pmtiles` (the GRIB2 valid time, UTC, to the minute), written
 *   atomically, and exits (1 with one `mrms: <file>: <problem>` line when the file is not
 *   valid GRIB2, not reflectivity, past the limits of `mrms-limits.ts`, or fails otherwise;
 *   1 too when its frame is older than `RADAR_RETENTION_S`: a service would unpublish and
 *   delete it). With `--type-file <PrecipFlag>` the frame is coloured by precipitation type
 *   when the flag pairs; a flag that does not is reported on stderr and the frame is still
 *   written, untyped (exit 0).
 * - `npm run mrms` follows `MRMS_SOURCE` (NOAA's bucket by default) and publishes every new
 *   file once into the configured archive store (`S3_*` or `RADAR_DATA_DIR`), with the leader
 *   lease in Redis when `REDIS_URL` is set, and metrics on `ADMIN_PORT`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { describeSeconds, outsideRetention, type RetentionRefusal } from '../domain/retention';
import { exitStartFailure, parseCommandLine } from './command-line';
import { createLogger } from '../logger';
import { Grib2Error } from '../sources/mrms/grib2/grib2-error';
import { convertMrmsFile, mrmsArchiveFacts } from '../sources/mrms/mrms-frame';
import { MrmsProductError } from '../sources/mrms/mrms-grid';
import { MRMS_LIMITS } from '../sources/mrms/mrms-settings';
import { integerFlag } from '../shared/integer-limit';
import { fsArchives } from '../wiring/fs';
import { onFatalErrors, onSignals } from '../wiring/lifecycle';
import { buildMrmsProducer } from '../wiring/mrms';

const USAGE = `usage: mrms --file FILE [--type-file FLAG] [--out DIR] [--max-zoom Z]
       mrms

  --file FILE       convert one MRMS GRIB2 file (.grib2 or .grib2.gz) and exit; a frame
                    older than RADAR_RETENTION_S (default 6 h) is refused, since a service
                    would unpublish and delete it: set a longer retention for both
  --type-file FLAG  colour it by the MRMS PrecipFlag_00.00 file FLAG (snow, rain, hail); a
                    flag that does not pair (not PrecipFlag, another grid, more than 60 s
                    away) is reported and the frame is written untyped
  --out DIR         where --file writes {YYYYMMDDHHmm}.pmtiles (default ./data)
  --max-zoom Z      deepest zoom of --file, ${MRMS_LIMITS.maxZoom.min}..${MRMS_LIMITS.maxZoom.max} (default ${MRMS_LIMITS.maxZoom.default})

Without --file: follows MRMS_SOURCE (default NOAA's bucket noaa-mrms-pds) and publishes each
new file once into the archive store (S3_* or RADAR_DATA_DIR); see docs/mrms.md.
`;

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      file: { type: 'string' },
      'type-file': { type: 'string' },
      out: { type: 'string', default: './data' },
      'max-zoom': { type: 'string', default: String(MRMS_LIMITS.maxZoom.default) },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  const maxZoom = integerFlag('max-zoom', values['max-zoom'], MRMS_LIMITS.maxZoom);
  return {
    help: values.help,
    file: values.file,
    typeFile: values['type-file'],
    out: values.out,
    maxZoom,
  };
}

/** The refusal of a frame the service would unpublish and delete (`RADAR_RETENTION_S`). */
function retentionMessage(
  timestamp: string,
  validTimeMs: number,
  out: string,
  refusal: RetentionRefusal,
): string {
  const { ageS, retentionS, suggestedRetentionS } = refusal;
  return [
    `mrms: frame ${timestamp} (valid ${new Date(validTimeMs).toISOString()}) is ${describeSeconds(ageS)} old,`,
    `  older than RADAR_RETENTION_S (${retentionS} s, ${describeSeconds(retentionS)}): a service reading ${out}`,
    '  would unpublish it and delete its file. Nothing was written.',
    '  To keep and look at it, give this command and the service the same longer retention:',
    `  RADAR_RETENTION_S=${suggestedRetentionS} (see "Looking at a past frame" in docs/mrms.md).`,
    '',
  ].join('\n');
}

/** The bytes of `file`, or undefined after saying why on stderr. */
async function readInput(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (error) {
    process.stderr.write(`mrms: cannot read ${file}: ${(error as Error).message}\n`);
    return undefined;
  }
}

/** `--file` (and `--type-file`): one conversion in this process, written atomically. */
async function convertOne(
  file: string,
  typeFile: string | undefined,
  out: string,
  maxZoom: number,
  retentionS: number,
): Promise<number> {
  const began = performance.now();
  const name = path.basename(file);
  const bytes = await readInput(file);
  if (bytes === undefined) return 1;
  let flag: { name: string; bytes: Buffer } | undefined;
  if (typeFile !== undefined) {
    const flagBytes = await readInput(typeFile);
    if (flagBytes === undefined) return 1;
    flag = { name: path.basename(typeFile), bytes: flagBytes };
  }
  let archive: Buffer;
  try {
    archive = convertMrmsFile({ name, bytes, flag }, { maxZoom });
  } catch (error) {
    if (error instanceof Grib2Error || error instanceof MrmsProductError) {
      process.stderr.write(`mrms: ${error.message}\n`);
      return 1;
    }
    // Anything else is a fault of the converter on this input: still one line naming the file.
    process.stderr.write(`mrms: ${name}: conversion failed: ${String(error)}\n`);
    return 1;
  }
  const { timestamp, validTimeMs, flag: note } = mrmsArchiveFacts(archive);
  const refusal = outsideRetention(validTimeMs, Date.now(), retentionS);
  if (refusal !== undefined) {
    process.stderr.write(retentionMessage(timestamp, validTimeMs, out, refusal));
    return 1;
  }
  if (note !== undefined && !note.used)
    process.stderr.write(
      `mrms: type file ${note.file} refused: ${note.problem}; the frame is written untyped\n`,
    );
  const sink = fsArchives(out).frameSink();
  const existed = await sink.has(timestamp);
  await sink.put(timestamp, archive);
  const target = path.join(out, `${timestamp}.pmtiles`);
  const seconds = ((performance.now() - began) / 1000).toFixed(2);
  process.stderr.write(
    existed
      ? `${target} already exists: left untouched (converted in ${seconds} s)\n`
      : `wrote ${target}: ${(archive.length / 1024).toFixed(0)} KiB, valid ${new Date(validTimeMs).toISOString()}, ${note?.used ? 'typed' : 'untyped'}, ${seconds} s\n`,
  );
  return 0;
}

async function main(): Promise<void> {
  const args = parseCommandLine(process.argv.slice(2), parse, USAGE);
  if (args === undefined) return;
  const config = loadConfig(process.env);
  if (args.file !== undefined) {
    const { retentionS } = config.publication;
    process.exitCode = await convertOne(
      args.file,
      args.typeFile,
      args.out,
      args.maxZoom,
      retentionS,
    );
    return;
  }
  const logger = createLogger(config.logLevel, { service: 'radar-mrms' });
  const producer = await buildMrmsProducer(config, { logger });
  onFatalErrors({ logger, shutdown: producer.shutdown, deadlineMs: 30_000 });
  onSignals(producer.shutdown);
}

main().catch((error: unknown) =>
  exitStartFailure(error, (failure) => `mrms: ${failure.stack ?? failure.message}`),
);
