/**
 * One MRMS file to map tiles, two ways, in the same run on the same machine: the producer
 * (`node dist/bin/mrms.js --file`: gunzip, GRIB2 decode, render zooms 0-7, PMTiles, atomic
 * write) against GDAL 3.6 from Debian doing the same job: gunzip, `gdaldem color-relief -alpha`
 * with the service's palette written as steps (each colour held from its dBZ up to the next
 * step's, no coverage and no echo transparent), then `gdal2tiles.py --xyz -z 0-7 -r near
 * --processes=2`. Ours also converts the same frame typed (`--type-file` with the PrecipFlag
 * sample re-timed onto the frame's cycle), the job the untyped GDAL pipeline is the baseline
 * for. Runs alternate (ours, ours typed, GDAL, ours, ...) so drift of a shared machine hits
 * every side; the medians are compared.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readArchiveMetadata } from '../../src/pmtiles/archive-metadata';
import { decodeHeader } from '../../src/pmtiles/header';
import { REFLECTIVITY_PALETTE, hexToRgb } from '../../src/palette/palette';
import { SAMPLE_TIME_MS, sampleFlagAt } from '../../test/fixtures/mrms-frames';
import { log } from './runner';
import { measureCommand, medianCost, sequence, type ProcessCost } from './process-cost';

const ROOT = path.resolve(__dirname, '../..');
const MRMS_ENTRY = path.join(ROOT, 'dist/bin/mrms.js');
/** The sample is from 2023: a retention that keeps it (the command refuses older frames). */
const MRMS_ENV = { ...process.env, RADAR_RETENTION_S: String(10 * 365 * 86400) };
/** The flag's cycle for the sample: NOAA stamps PrecipFlag to the 2-minute cycle. */
const FLAG_CYCLE_MS = SAMPLE_TIME_MS - 39_000;

export interface ConversionComparison {
  readonly file: string;
  readonly runs: number;
  readonly ours: ProcessCost & { readonly tiles: number; readonly bytes: number };
  /** The same frame converted with its PrecipFlag (`--type-file`): a typed archive. */
  readonly typed: ProcessCost & { readonly tiles: number; readonly bytes: number };
  readonly gdal: ProcessCost & {
    readonly tiles: number;
    readonly bytes: number;
    readonly steps: Record<'gunzip' | 'gdaldem' | 'gdal2tiles', ProcessCost>;
  };
  readonly gdalVersion: string;
  /** ours / GDAL. */
  readonly cpuRatio: number;
  readonly wallRatio: number;
  /** typed / GDAL's untyped pipeline. */
  readonly typedCpuRatio: number;
  readonly typedWallRatio: number;
  /** Bytes of the typed archive / the untyped one. */
  readonly typedSizeRatio: number;
}

/**
 * The palette as a `gdaldem color-relief` colour file of steps: each colour at its step's dBZ
 * and again just below the next step, so the linear interpolation between entries is flat; the
 * MRMS markers (-999, -99) and everything below 5 dBZ transparent, `nv` (nodata) too.
 */
export function gdalStepPalette(): string {
  const lines = ['nv 0 0 0 0', '-1000 0 0 0 0', '4.999 0 0 0 0'];
  REFLECTIVITY_PALETTE.forEach((step, i) => {
    const [r, g, b] = hexToRgb(step.color);
    const top = REFLECTIVITY_PALETTE[i + 1]?.dbz ?? 1000;
    lines.push(`${step.dbz} ${r} ${g} ${b} 255`, `${top - 0.001} ${r} ${g} ${b} 255`);
  });
  return `${lines.join('\n')}\n`;
}

function countFiles(dir: string, suffix: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith(suffix)) continue;
    files++;
    bytes += fs.statSync(path.join(dir, entry)).size;
  }
  return { files, bytes };
}

/** Our conversion of `sample`, typed with `flagFile` when given. */
async function ours(sample: string, workDir: string, flagFile?: string) {
  const out = path.join(workDir, flagFile ? 'ours-typed' : 'ours');
  fs.rmSync(out, { recursive: true, force: true });
  const typeArgs = flagFile ? ['--type-file', flagFile] : [];
  const cost = await measureCommand(
    process.execPath,
    [MRMS_ENTRY, '--file', sample, ...typeArgs, '--out', out],
    { env: MRMS_ENV },
  );
  const [archive] = fs.readdirSync(out).filter((f) => f.endsWith('.pmtiles'));
  const bytes = fs.readFileSync(path.join(out, archive!));
  // A refused flag still writes the frame, untyped: that would time the wrong job.
  const { precipitationType } = readArchiveMetadata(bytes) as {
    precipitationType?: { typed?: boolean };
  };
  const typed = precipitationType?.typed === true;
  if (typed !== Boolean(flagFile)) {
    throw new Error(`mrms: expected a${flagFile ? ' typed' : 'n untyped'} archive in ${out}`);
  }
  return { ...cost, tiles: decodeHeader(bytes).numAddressedTiles, bytes: bytes.length };
}

async function gdal(sample: string, workDir: string) {
  const dir = path.join(workDir, 'gdal');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  const grib = path.join(dir, 'frame.grib2');
  const palette = path.join(dir, 'palette.txt');
  const coloured = path.join(dir, 'coloured.tif');
  fs.writeFileSync(palette, gdalStepPalette());
  const gunzip = await measureCommand('gzip', ['-dc', sample], { stdoutFile: grib });
  const gdaldem = await measureCommand('gdaldem', [
    'color-relief',
    grib,
    palette,
    coloured,
    '-alpha',
    '-q',
  ]);
  const gdal2tiles = await measureCommand('gdal2tiles.py', [
    '--xyz',
    '-z',
    '0-7',
    '-r',
    'near',
    '--processes=2',
    '-q',
    coloured,
    path.join(dir, 'tiles'),
  ]);
  const { files, bytes } = countFiles(path.join(dir, 'tiles'), '.png');
  return {
    ...sequence([gunzip, gdaldem, gdal2tiles]),
    tiles: files,
    bytes,
    steps: { gunzip, gdaldem, gdal2tiles },
  };
}

/** `runs` alternating conversions of `sample` each way in `workDir`; medians compared. */
export async function compareWithGdal(
  sample: string,
  workDir: string,
  runs: number,
): Promise<ConversionComparison> {
  const gdalVersion = execFileSync('gdalinfo', ['--version'], { encoding: 'utf8' }).trim();
  fs.mkdirSync(workDir, { recursive: true });
  const flag = sampleFlagAt(FLAG_CYCLE_MS);
  const flagFile = path.join(workDir, flag.name);
  fs.writeFileSync(flagFile, flag.bytes);
  const mine: Awaited<ReturnType<typeof ours>>[] = [];
  const typed: Awaited<ReturnType<typeof ours>>[] = [];
  const theirs: Awaited<ReturnType<typeof gdal>>[] = [];
  for (let i = 0; i < runs; i++) {
    mine.push(await ours(sample, workDir));
    log(`mrms: ours run ${i + 1}: ${JSON.stringify(mine.at(-1))}`);
    typed.push(await ours(sample, workDir, flagFile));
    log(`mrms: ours typed run ${i + 1}: ${JSON.stringify(typed.at(-1))}`);
    theirs.push(await gdal(sample, workDir));
    const { steps, ...total } = theirs.at(-1)!;
    log(`mrms: GDAL run ${i + 1}: ${JSON.stringify(total)} ${JSON.stringify(steps)}`);
  }
  const o = { ...medianCost(mine), tiles: mine[0]!.tiles, bytes: mine[0]!.bytes };
  const t = { ...medianCost(typed), tiles: typed[0]!.tiles, bytes: typed[0]!.bytes };
  const g = {
    ...medianCost(theirs),
    tiles: theirs[0]!.tiles,
    bytes: theirs[0]!.bytes,
    steps: {
      gunzip: medianCost(theirs.map((t) => t.steps.gunzip)),
      gdaldem: medianCost(theirs.map((t) => t.steps.gdaldem)),
      gdal2tiles: medianCost(theirs.map((t) => t.steps.gdal2tiles)),
    },
  };
  const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
  return {
    file: path.basename(sample),
    runs,
    ours: o,
    typed: t,
    gdal: g,
    gdalVersion,
    cpuRatio: ratio(o.cpuS, g.cpuS),
    wallRatio: ratio(o.wallS, g.wallS),
    typedCpuRatio: ratio(t.cpuS, g.cpuS),
    typedWallRatio: ratio(t.wallS, g.wallS),
    typedSizeRatio: ratio(t.bytes, o.bytes),
  };
}
