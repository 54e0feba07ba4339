/**
 * Measures the renderer on an MRMS-sized frame (7000 x 3500 cells of 0.01 degree, MRMS CONUS
 * bounds): wall time, CPU seconds of the whole process (all threads, workers included) and peak
 * RSS, in-process and through the grid render pool. A measuring tool, not a test.
 *
 *   npx tsx tools/render-figures.ts [--grid synthetic|FILE] [--max-zoom 7] [--runs 3]
 *                                   [--mode both|inline|pool] [--png-level 6]
 *
 * `synthetic` (default) is the simulator's weather at a stormy instant, interpolated onto the
 * MRMS grid, with -999 outside a coverage area shaped like radar umbrellas and -99 where a
 * covered cell has no echo. FILE is a raw little-endian float32 dump of a 7000 x 3500 MRMS
 * field, row 0 northernmost (wgrib2 `-order raw -bin`), optionally xz-compressed (`.xz`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  NO_COVERAGE_MARKER,
  NO_ECHO_MARKER,
  type ReflectivityGrid,
} from '../src/domain/reflectivity-grid';
import { parseTimestamp } from '../src/domain/timestamps';
import { PMTiles } from 'pmtiles';
import { createGridRenderPool } from '../src/render/grid-render-pool';
import { renderFrame } from '../src/render/render-frame';
import { createReflectivityField } from '../src/sim/field';
import { createBufferSource } from '../test/fixtures/buffer-source';

const WIDTH = 7000;
const HEIGHT = 3500;
const WEST = -129.995;
const NORTH = 54.995;
const STEP = 0.01;

function syntheticGrid(): ReflectivityGrid {
  const bounds = { west: -130, south: 20, east: -60, north: 55 };
  const stepDeg = 0.05;
  const field = createReflectivityField({ bounds, stepDeg }).sample(
    parseTimestamp('202606010000')!,
  );
  const values = new Float32Array(WIDTH * HEIGHT);
  // Radar umbrellas: 230 km discs on a 2.5-degree lattice over CONUS.
  const sites: Array<[number, number]> = [];
  for (let lon = -123.5; lon <= -68; lon += 2.5)
    for (let lat = 26; lat <= 48.5; lat += 2.5) sites.push([lon, lat]);
  for (let r = 0; r < HEIGHT; r++) {
    const lat = NORTH - r * STEP;
    const gy = Math.min(field.rows - 1.0001, Math.max(0, (bounds.north - lat) / stepDeg));
    const r0 = Math.floor(gy);
    const fy = gy - r0;
    const kmLon = 111.32 * Math.cos((lat * Math.PI) / 180);
    const near = sites.filter(([, sLat]) => Math.abs(sLat - lat) < 2.2);
    for (let c = 0; c < WIDTH; c++) {
      const lon = WEST + c * STEP;
      let covered = false;
      for (const [sLon, sLat] of near) {
        const dx = (lon - sLon) * kmLon;
        const dy = (lat - sLat) * 110.57;
        if (dx * dx + dy * dy < 230 * 230) {
          covered = true;
          break;
        }
      }
      const i = r * WIDTH + c;
      if (!covered) {
        values[i] = NO_COVERAGE_MARKER;
        continue;
      }
      const gx = Math.min(field.cols - 1.0001, Math.max(0, (lon - bounds.west) / stepDeg));
      const c0 = Math.floor(gx);
      const fx = gx - c0;
      const d = field.dbz;
      const top = d[r0 * field.cols + c0]! * (1 - fx) + d[r0 * field.cols + c0 + 1]! * fx;
      const bottom =
        d[(r0 + 1) * field.cols + c0]! * (1 - fx) + d[(r0 + 1) * field.cols + c0 + 1]! * fx;
      const v = top * (1 - fy) + bottom * fy;
      values[i] = v < 0 ? NO_ECHO_MARKER : Math.round(v * 10) / 10;
    }
  }
  return gridOf(values, 'synthetic MRMS-sized frame (simulated weather)');
}

function fileGrid(path: string): ReflectivityGrid {
  const raw = path.endsWith('.xz')
    ? execFileSync('xz', ['-dc', path], { maxBuffer: WIDTH * HEIGHT * 4 + 1024 })
    : readFileSync(path);
  if (raw.length !== WIDTH * HEIGHT * 4)
    throw new Error(`${path}: ${raw.length} bytes, expected ${WIDTH * HEIGHT * 4}`);
  const values = new Float32Array(WIDTH * HEIGHT);
  new Uint8Array(values.buffer).set(raw);
  return gridOf(values, 'MRMS ReflectivityAtLowestAltitude 00.50');
}

function gridOf(values: Float32Array, product: string): ReflectivityGrid {
  return {
    width: WIDTH,
    height: HEIGHT,
    west: WEST,
    north: NORTH,
    dLon: STEP,
    dLat: STEP,
    values,
    noCoverage: NO_COVERAGE_MARKER,
    noEcho: NO_ECHO_MARKER,
    product,
    validTimeMs: Date.UTC(2023, 3, 6, 12, 0, 39),
  };
}

interface Figure {
  wallS: number;
  cpuS: number;
  bytes: number;
}

async function measure(run: () => Promise<Buffer> | Buffer): Promise<Figure> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const bytes = await run();
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { wallS, cpuS: (cpu.user + cpu.system) / 1e6, bytes: bytes.length };
}

async function describeArchive(bytes: Buffer): Promise<string> {
  const reader = new PMTiles(createBufferSource(bytes));
  const header = await reader.getHeader();
  const meta = (await reader.getMetadata()) as { cells?: Record<string, number> };
  return `${header.numAddressedTiles} tiles, ${(bytes.length / 1024).toFixed(0)} KiB, cells ${JSON.stringify(meta.cells)}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      grid: { type: 'string', default: 'synthetic' },
      'max-zoom': { type: 'string', default: '7' },
      runs: { type: 'string', default: '3' },
      mode: { type: 'string', default: 'both' },
      'png-level': { type: 'string', default: '6' },
    },
  });
  const maxZoom = Number(values['max-zoom']);
  const runs = Number(values.runs);
  const pngLevel = Number(values['png-level']);
  const build = () => (values.grid === 'synthetic' ? syntheticGrid() : fileGrid(values.grid!));
  const t0 = performance.now();
  const grid = build();
  const rssBefore = process.memoryUsage().rss;
  console.log(
    `grid: ${grid.product}, ${grid.width} x ${grid.height}, built in ${((performance.now() - t0) / 1000).toFixed(1)} s; RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB`,
  );
  const line = (label: string, f: Figure) =>
    console.log(
      `${label}: wall ${f.wallS.toFixed(2)} s, CPU ${f.cpuS.toFixed(2)} s, archive ${(f.bytes / 1024).toFixed(0)} KiB`,
    );

  if (values.mode !== 'pool') {
    let bytes: Buffer | undefined;
    for (let i = 0; i < runs; i++) {
      line(
        `inline run ${i + 1} (z0-${maxZoom})`,
        await measure(() => (bytes = renderFrame(grid, { maxZoom, pngLevel }))),
      );
    }
    console.log(`  archive: ${await describeArchive(bytes!)}`);
  }
  if (values.mode !== 'inline') {
    const pool = createGridRenderPool({ size: 2, render: { maxZoom, pngLevel } });
    try {
      for (let i = 0; i < runs; i++) {
        // The grid's values move to the worker, so each run sends a fresh copy (made before timing).
        const copy = { ...grid, values: grid.values.slice() };
        line(
          `pool run ${i + 1} (one frame, z0-${maxZoom})`,
          await measure(() => pool.render(copy)),
        );
      }
      const copies = [0, 1].map(() => ({ ...grid, values: grid.values.slice() }));
      const pair = await measure(
        async () => (await Promise.all(copies.map((g) => pool.render(g))))[0]!,
      );
      line('pool, two frames at once on 2 workers', pair);
    } finally {
      await pool.close();
    }
  }
  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(
    `peak RSS of the process: ${(peak / 2 ** 20).toFixed(0)} MiB (the grid itself: ${((grid.width * grid.height * 4) / 2 ** 20).toFixed(0)} MiB)`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
