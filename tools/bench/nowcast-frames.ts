/**
 * The nowcast benchmark's decoded frames: each MRMS file of a sequence read with the service's
 * GRIB2 reader and written as `{YYYYMMDDHHmm}.f32` (float32 LE, NaN where there is no
 * coverage, as the nowcast reads it), with `grid.json` (width, height, reflectivity or not),
 * for the peer method, which runs in Python and reads no GRIB2.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { formatTimestamp } from '../../src/domain/timestamps';
import { listFrameFiles, loadFrameFile } from '../../src/bin/nowcast-frames';
import { REFLECTIVITY_SCALE } from '../../src/nowcast/grid';

/** Writes the decoded frames of `framesDir` into `outDir`; returns how many. */
export async function decodeFrames(framesDir: string, outDir: string): Promise<number> {
  await fs.mkdir(outDir, { recursive: true });
  const files = await listFrameFiles(framesDir);
  let grid: { width: number; height: number; reflectivity: boolean } | undefined;
  for (const file of files) {
    const input = await loadFrameFile(file);
    const { width, height, values } = input.frame.grid;
    grid ??= { width, height, reflectivity: input.scale === REFLECTIVITY_SCALE };
    const bytes = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
    await fs.writeFile(path.join(outDir, `${formatTimestamp(input.frame.timeMs)}.f32`), bytes);
  }
  if (grid) await fs.writeFile(path.join(outDir, 'grid.json'), `${JSON.stringify(grid)}\n`);
  return files.length;
}
