/** The byte windows the range scenarios read (deterministic, so every run asks the same). */
import { PMTiles } from 'pmtiles';
import { BLOCK_BYTES } from '../../src/serving/block-cache';
import type { Frame } from './archives';
import type { PlannedRequest } from './load-job';
import { rangeHeader } from './map-plan';
import { createUniformSequence } from '../../src/sim/noise';

/** Size of a hot or cold range read: what a client's first read of an archive asks for. */
export const WINDOW = 16 * 1024;

export const tilesPath = (ts: string): string => `/tiles/${ts}.pmtiles`;

/** 16 KiB windows at `count` offsets of `frame` (the first at 0, the header read). */
export function hotWindows(frame: Frame, count: number): PlannedRequest[] {
  const random = createUniformSequence(11);
  return Array.from({ length: count }, (_, i) => {
    const offset = i === 0 ? 0 : Math.floor(random() * (frame.bytes.length - WINDOW));
    return { path: tilesPath(frame.timestamp), range: rangeHeader(offset, WINDOW) };
  });
}

/** Path of one z/x/y tile. */
export const tilePathOf = (ts: string, z: number, x: number, y: number): string =>
  `/tiles/${ts}/${z}/${x}/${y}.png`;

/**
 * Up to `count` tiles the newest archive holds at zooms 5-6 (where map views over CONUS sit),
 * with their bytes as the `pmtiles` reader returns them, for the tile scenario and its
 * static baselines.
 */
export async function hotTiles(
  frame: Frame,
  count: number,
): Promise<Array<{ path: string; bytes: Buffer }>> {
  const reader = new PMTiles({
    getKey: () => 'bench',
    getBytes: async (offset: number, length: number) => ({
      data: new Uint8Array(frame.bytes.subarray(offset, offset + length)).buffer,
    }),
  });
  const out: Array<{ path: string; bytes: Buffer }> = [];
  for (const z of [6, 5]) {
    const n = 2 ** z;
    // CONUS: x over -125..-66 degrees, y over 50..24 degrees north.
    const x0 = Math.floor(((-125 + 180) / 360) * n);
    const x1 = Math.floor(((-66 + 180) / 360) * n);
    const yOf = (lat: number) =>
      Math.floor(((1 - Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360)) / Math.PI) / 2) * n);
    for (let x = x0; x <= x1; x++)
      for (let y = yOf(50); y <= yOf(24); y++) {
        const tile = await reader.getZxy(z, x, y);
        if (tile && out.length < count)
          out.push({ path: tilePathOf(frame.timestamp, z, x, y), bytes: Buffer.from(tile.data) });
      }
  }
  return out;
}

/** `count` random 16 KiB windows across all `frames`, paths made by `pathOf`. */
export function coldWindows(
  frames: readonly Frame[],
  count: number,
  pathOf: (ts: string) => string,
): PlannedRequest[] {
  const random = createUniformSequence(23);
  return Array.from({ length: count }, () => {
    const frame = frames[Math.floor(random() * frames.length)]!;
    const offset = Math.floor(random() * (frame.bytes.length - WINDOW));
    return { path: pathOf(frame.timestamp), range: rangeHeader(offset, WINDOW) };
  });
}

/**
 * One 16 KiB window inside each block-cache block of `frames`, shuffled: on a replica that
 * never read those archives, every request is a block miss that loads the block from the store.
 */
export function firstTouchWindows(frames: readonly Frame[]): PlannedRequest[] {
  const random = createUniformSequence(31);
  const out: PlannedRequest[] = [];
  for (const frame of frames) {
    for (let start = 0; start < frame.bytes.length; start += BLOCK_BYTES) {
      const room = Math.min(BLOCK_BYTES, frame.bytes.length - start) - WINDOW;
      if (room < 0) continue;
      const offset = start + Math.floor(random() * (room + 1));
      out.push({ path: tilesPath(frame.timestamp), range: rangeHeader(offset, WINDOW) });
    }
  }
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
