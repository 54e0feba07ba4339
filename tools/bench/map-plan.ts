/**
 * Request plans of virtual map clients, taken from the real client library: the `pmtiles`
 * reader (what MapLibre uses) runs over a recording source on each archive's bytes, and every
 * `getBytes` it issues becomes one HTTP Range request. So the plan has exactly the reads a
 * browser makes: the 16 KiB header + root directory, the leaf directories it needs, then one
 * range per tile that exists (empty sky has no tile and costs no request).
 */
import { PMTiles, SharedPromiseCache, type RangeResponse, type Source } from 'pmtiles';
import { tileRange } from '../../src/render/web-mercator';
import { CONUS_BOUNDS } from '../../src/sim/field';
import type { Frame } from './archives';
import type { PlannedRequest } from './load-job';
import { createUniformSequence } from '../../src/sim/noise';

/** A source over an in-memory archive that records every byte window asked for. */
class RecordingSource implements Source {
  readonly reads: Array<{ offset: number; length: number }> = [];
  constructor(
    private readonly key: string,
    private readonly bytes: Buffer,
  ) {}
  getKey(): string {
    return this.key;
  }
  async getBytes(offset: number, length: number): Promise<RangeResponse> {
    this.reads.push({ offset, length });
    const end = Math.min(this.bytes.length, offset + length);
    const slice = this.bytes.subarray(offset, end);
    const data = slice.buffer.slice(
      slice.byteOffset,
      slice.byteOffset + slice.length,
    ) as ArrayBuffer;
    return { data };
  }
}

export interface View {
  readonly z: number;
  readonly x0: number;
  readonly y0: number;
  readonly width: number;
  readonly height: number;
}

export interface ClientPlan {
  readonly view: View;
  readonly requests: PlannedRequest[];
  /** Tile requests in the plan (the rest are header and directory reads). */
  readonly tileRequests: number;
  readonly directoryRequests: number;
}

export function rangeHeader(offset: number, length: number): string {
  return `bytes=${offset}-${offset + length - 1}`;
}

/** The reads of one client opening `frame` and drawing `view`. */
async function readsFor(
  frame: Frame,
  view: View,
): Promise<{ reads: RecordingSource['reads']; tiles: number }> {
  const source = new RecordingSource(frame.timestamp, frame.bytes);
  // A fresh reader per client and frame: its caches are that client's own (browser memory).
  const archive = new PMTiles(source, new SharedPromiseCache(100, false));
  let tiles = 0;
  await archive.getHeader();
  for (let y = view.y0; y < view.y0 + view.height; y++) {
    for (let x = view.x0; x < view.x0 + view.width; x++) {
      const before = source.reads.length;
      const tile = await archive.getZxy(view.z, x, y);
      if (tile) tiles += 1;
      // Directory reads happen before the tile read; the tile's own read is the last one.
      if (tile && source.reads.length === before) throw new Error('tile without a read');
    }
  }
  return { reads: source.reads, tiles };
}

/**
 * `count` client plans over `frames` (the animation loop, newest first), each a view of
 * `width` x `height` tiles at zoom 5..`maxZoom` inside CONUS, chosen so that at least
 * `minTiles` tiles of the newest frame exist (radar covers part of the country; a client
 * looking at clear sky makes few requests and is not what loads the service).
 */
export async function mapClientPlans(options: {
  frames: readonly Frame[];
  count: number;
  maxZoom: number;
  width?: number;
  height?: number;
  minTiles?: number;
  seed?: number;
}): Promise<ClientPlan[]> {
  const width = options.width ?? 5;
  const height = options.height ?? 4;
  const minTiles = options.minTiles ?? 12;
  const random = createUniformSequence(options.seed ?? 42);
  const plans: ClientPlan[] = [];
  const newest = options.frames[0]!;
  for (let attempt = 0; plans.length < options.count && attempt < options.count * 200; attempt++) {
    const z = 5 + Math.floor(random() * (options.maxZoom - 4));
    const r = tileRange(CONUS_BOUNDS, z);
    const x0 = r.minX + Math.floor(random() * Math.max(1, r.maxX - r.minX + 2 - width));
    const y0 = r.minY + Math.floor(random() * Math.max(1, r.maxY - r.minY + 2 - height));
    const view: View = { z, x0, y0, width, height };
    const probe = await readsFor(newest, view);
    if (probe.tiles < minTiles) continue;
    const requests: PlannedRequest[] = [];
    let tileRequests = 0;
    // Animation loop: oldest to newest, as a radar loop plays.
    for (const frame of [...options.frames].reverse()) {
      const { reads, tiles } = await readsFor(frame, view);
      tileRequests += tiles;
      for (const read of reads) {
        requests.push({
          path: `/tiles/${frame.timestamp}.pmtiles`,
          range: rangeHeader(read.offset, read.length),
        });
      }
    }
    plans.push({ view, requests, tileRequests, directoryRequests: requests.length - tileRequests });
  }
  if (plans.length < options.count) {
    throw new Error(`only ${plans.length} of ${options.count} map views have ${minTiles}+ tiles`);
  }
  return plans;
}
