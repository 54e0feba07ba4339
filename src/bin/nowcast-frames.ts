/**
 * The nowcast CLI's frames directory: which MRMS files it holds (by the time in their names)
 * and each one decoded. A directory that mixes products, or holds two files for one time, is
 * refused with an error naming them: the nowcast never mixes frames of different products.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { readGrib2 } from '../sources/mrms/grib2/read-grib2';
import {
  mrmsNowcastInput,
  parseNowcastFileName,
  type NowcastInput,
} from '../sources/mrms/mrms-nowcast-input';

/** A bad frames directory or a bad mix of frames: the CLI prints it and exits 1. */
export class NowcastInputError extends Error {
  override readonly name = 'NowcastInputError';
}

const toMinute = (ms: number) => Math.floor(ms / 60_000) * 60_000;

/** One file of the directory. */
export interface FrameFile {
  readonly file: string;
  readonly name: string;
  /** The time in the name, to the minute (MRMS times carry seconds; cycles count minutes). */
  readonly timeMs: number;
  readonly productLevel: string;
}

/** The MRMS files of `dir`, oldest first; other files are ignored. */
export async function listFrameFiles(dir: string): Promise<FrameFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new NowcastInputError(`cannot read --frames ${dir}: ${(error as Error).message}`);
  }
  const files: FrameFile[] = [];
  for (const name of names.sort()) {
    const parsed = parseNowcastFileName(name);
    if (parsed)
      files.push({
        file: path.join(dir, name),
        name,
        timeMs: toMinute(parsed.timeMs),
        productLevel: parsed.productLevel,
      });
  }
  const products = [...new Set(files.map((f) => f.productLevel))];
  if (products.length > 1)
    throw new NowcastInputError(
      `${dir} mixes products (${products.join(', ')}); give one product per directory`,
    );
  files.sort((a, b) => a.timeMs - b.timeMs);
  for (let i = 1; i < files.length; i++)
    if (files[i]!.timeMs === files[i - 1]!.timeMs)
      throw new NowcastInputError(
        `${files[i - 1]!.name} and ${files[i]!.name} are for the same time`,
      );
  return files;
}

/**
 * Decodes one file (Grib2Error or MrmsProductError when it is not a usable MRMS file), its
 * frame timed to the minute; a file whose valid time is not the minute its name says is
 * refused (a renamed file would otherwise stand in for another time).
 */
export async function loadFrameFile(file: FrameFile): Promise<NowcastInput> {
  const bytes = await readFile(file.file);
  const input = mrmsNowcastInput(readGrib2(bytes, file.name), file.name);
  const timeMs = toMinute(input.frame.timeMs);
  if (timeMs !== file.timeMs)
    throw new NowcastInputError(
      `${file.name}: the field is valid at ${new Date(input.frame.timeMs).toISOString()}, not at the time its name says`,
    );
  return { ...input, frame: { ...input.frame, timeMs } };
}

/**
 * Throws {@link NowcastInputError} unless `inputs` are of one product on one grid; `names`
 * name them in the message.
 */
export function checkSameKind(inputs: readonly NowcastInput[], names: readonly string[]): void {
  for (let i = 1; i < inputs.length; i++) {
    const a = inputs[0]!;
    const b = inputs[i]!;
    if (a.product !== b.product)
      throw new NowcastInputError(
        `${names[0]} is product ${a.product} and ${names[i]} ${b.product}: products differ`,
      );
    if (a.geometry !== b.geometry)
      throw new NowcastInputError(
        `${names[0]} is on grid ${a.geometry} and ${names[i]} on ${b.geometry}: grids differ`,
      );
  }
}
