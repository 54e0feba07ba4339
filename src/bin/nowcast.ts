/**
 * Nowcast CLI (`npm run nowcast`): the next hour of radar extrapolated from MRMS frames, and
 * its verification. See docs/nowcast.md.
 *
 * - `nowcast --frames DIR --base YYYYMMDDHHmm [--leads 10,...,60] --grids OUT` writes
 *   `OUT/{base}_{lead}.f32` per lead (minutes): little-endian float32, the input's grid shape
 *   and row order, NaN where there is no coverage, values in the product's units.
 * - `nowcast verify --frames DIR [--leads ...] [--compare NAME=DIR ...] [--json FILE]` scores
 *   every base time the sequence allows against the frames observed later, for persistence,
 *   the nowcast and each compared method's `{base}_{lead}.f32` files.
 * Exit status: 0 done, 1 bad input or a cycle that cannot run (the reason on stderr), 2 usage.
 */
import { parseArgs } from 'node:util';
import { parseTimestamp } from '../domain/timestamps';
import { loadOpenCv } from '../nowcast/opencv';
import { Grib2Error } from '../sources/mrms/grib2/grib2-error';
import { MrmsProductError } from '../sources/mrms/mrms-grid';
import { parseCommandLine } from './command-line';
import { NowcastInputError } from './nowcast-frames';
import { runForecast, runVerify } from './nowcast-commands';

const USAGE = `usage: nowcast --frames DIR --base YYYYMMDDHHmm [--leads 10,20,30,40,50,60] --grids OUT
       nowcast verify --frames DIR [--leads 10,20,30,40,50,60] [--compare NAME=DIR]... [--json FILE]

  --frames DIR    MRMS 2D files of one product (.grib2 or .grib2.gz, NOAA's MRMS_ names or
                  the same without MRMS_), one every 2 minutes
  --base TIME     the base time (UTC): the latest frame the forecast starts from
  --leads LIST    lead times in minutes, multiples of 2 (default 10,20,30,40,50,60)
  --grids OUT     where {base}_{lead}.f32 are written (float32 LE, NaN = no coverage)
  --compare N=DIR verify: also score N's forecasts, DIR/{base}_{lead}.f32
  --json FILE     verify: also write the scores as JSON
`;

/** Minutes between MRMS frames: the nowcast's time step. */
const STEP_MINUTES = 2;

function parseLeads(text: string): number[] {
  const leads = text.split(',').map((s) => Number(s.trim()));
  if (leads.some((l) => !Number.isInteger(l) || l <= 0 || l % STEP_MINUTES !== 0 || l > 360))
    throw new Error(
      `--leads must be minutes, multiples of ${STEP_MINUTES} up to 360, got ${JSON.stringify(text)}`,
    );
  return [...new Set(leads)].sort((a, b) => a - b);
}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      frames: { type: 'string' },
      base: { type: 'string' },
      leads: { type: 'string', default: '10,20,30,40,50,60' },
      grids: { type: 'string' },
      compare: { type: 'string', multiple: true, default: [] },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  const verify = positionals[0] === 'verify';
  if (positionals.length > (verify ? 1 : 0))
    throw new Error(`unexpected argument ${positionals.at(-1)}`);
  if (values.help) return { help: true as const };
  if (!values.frames) throw new Error('--frames is required');
  const leads = parseLeads(values.leads);
  if (verify) {
    const compare = values.compare.map((c) => {
      const at = c.indexOf('=');
      if (at < 1) throw new Error(`--compare must be NAME=DIR, got ${JSON.stringify(c)}`);
      return [c.slice(0, at), c.slice(at + 1)] as const;
    });
    return {
      help: false as const,
      verify: true as const,
      frames: values.frames,
      leads,
      compare,
      json: values.json,
    };
  }
  const baseMs = values.base === undefined ? undefined : parseTimestamp(values.base);
  if (baseMs === undefined)
    throw new Error(`--base must be YYYYMMDDHHmm, got ${JSON.stringify(values.base)}`);
  if (!values.grids) throw new Error('--grids is required');
  return {
    help: false as const,
    verify: false as const,
    frames: values.frames,
    leads,
    baseMs,
    grids: values.grids,
  };
}

async function main(): Promise<number> {
  const args = parseCommandLine(process.argv.slice(2), parse, USAGE);
  if (!args || args.help) return 0;
  const { cv } = await loadOpenCv();
  try {
    if (args.verify) return await runVerify(cv, args, STEP_MINUTES);
    return await runForecast(cv, args, STEP_MINUTES);
  } catch (error) {
    if (
      error instanceof NowcastInputError ||
      error instanceof Grib2Error ||
      error instanceof MrmsProductError
    ) {
      process.stderr.write(`nowcast: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

void main().then((code) => {
  process.exitCode = code;
});
