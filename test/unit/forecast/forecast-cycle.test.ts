/**
 * One producer cycle on the worker's side, in-process with the real OpenCV build: a typed
 * block of snow moving east is extrapolated with its type (the type grid is read at the same
 * source cell as the reflectivity), each lead is drawn by the one renderer as a typed frame
 * valid at base + lead, and a cycle told to give up between leads publishes nothing.
 */
import type { PrecipTypeGrid } from '../../../src/domain/precip-type-grid';
import type { ReflectivityGrid } from '../../../src/domain/reflectivity-grid';
import {
  compactTypes,
  echoImageOf,
  NOWCAST_METHOD,
  runForecastCycle,
} from '../../../src/forecast/forecast-cycle';
import { advectLayers } from '../../../src/nowcast/extrapolate';
import { loadOpenCv } from '../../../src/nowcast/opencv';
import { readArchiveMetadata } from '../../../src/pmtiles/archive-metadata';
import type { LoadedFrame } from '../../../src/render/worker-job';

jest.setTimeout(60_000);

const W = 160;
const H = 96;
const BASE_MS = Date.UTC(2026, 10, 28, 12, 0, 39); // MRMS stamps frames seconds into the minute

/** Snow (flag 3) in a 20 x 20 block whose west edge is at `x0`, rain elsewhere, dBZ 45. */
function frame(x0: number, validTimeMs: number): LoadedFrame {
  const values = new Float32Array(W * H).fill(-99);
  const codes = new Float32Array(W * H).fill(0);
  for (let y = 38; y < 58; y++)
    for (let x = x0; x < x0 + 20; x++) {
      values[y * W + x] = 45;
      codes[y * W + x] = 3;
    }
  const grid: ReflectivityGrid = {
    width: W,
    height: H,
    west: -100,
    north: 40,
    dLon: 0.01,
    dLat: 0.01,
    values,
    noCoverage: -999,
    noEcho: -99,
    product: 'MRMS ReflectivityAtLowestAltitude 00.50',
    validTimeMs,
  };
  const types: PrecipTypeGrid = { width: W, height: H, codes };
  return { grid, types, render: { maxZoom: 5, metadata: { source: 'test' } } };
}

it('moves the type with its echo and draws every lead as a typed forecast frame', async () => {
  const { cv } = await loadOpenCv();
  // 1 cell per minute eastward: 10 cells between the two frames 10 minutes apart.
  const earlier = frame(30, BASE_MS - 600_000);
  const latest = frame(40, BASE_MS);
  const archives = await runForecastCycle(
    cv,
    { baseMs: BASE_MS, full: latest, earlier: echoImageOf(earlier), latest: echoImageOf(latest) },
    [10, 20],
    async () => false,
  );
  expect(archives?.map((a) => a.lead)).toEqual([10, 20]);
  const metadata = readArchiveMetadata(archives![1]!.bytes);
  expect(metadata).toMatchObject({
    kind: 'forecast',
    timestamp: '202611281220',
    validTime: '2026-11-28T12:20:00.000Z',
    forecast: {
      base: '202611281200',
      lead: 20,
      valid: '202611281220',
      leads: [10, 20],
      method: NOWCAST_METHOD,
    },
    precipitationType: { typed: true },
    source: 'test',
  });
  // The motion it moved the echo (and its type) along is eastward.
  const motion = metadata.motion as { u: string; scale: number };
  const u = [...Buffer.from(motion.u, 'base64')].map((b) => ((b << 24) >> 24) * motion.scale);
  expect(Math.max(...u)).toBeGreaterThan(0.005); // degrees per minute eastward (0.01 true)
});

it('the type layer is read at the same cell as the reflectivity', () => {
  const values = Float32Array.from({ length: 8 * 4 }, (_, i) => i);
  const codes = Float32Array.from({ length: 8 * 4 }, (_, i) => 1000 + i);
  // Every motion point says: the trajectory started 2 columns west.
  const displacement = {
    width: 2,
    height: 1,
    factor: 4,
    dx: Float32Array.of(-2, -2),
    dy: Float32Array.of(0, 0),
  };
  const [moved, movedCodes] = advectLayers({ width: 8, height: 4 }, [values, codes], displacement);
  for (let i = 0; i < moved!.length; i++) {
    if (i % 8 < 2) {
      expect(moved![i]).toBeNaN(); // started west of the grid: no coverage
      expect(movedCodes![i]).toBeNaN();
    } else {
      expect(moved![i]).toBe(i - 2);
      expect(movedCodes![i]).toBe(1000 + i - 2);
    }
  }
});

it('a cycle told to give up between leads returns nothing', async () => {
  const { cv } = await loadOpenCv();
  const latest = frame(40, BASE_MS);
  const cycle = {
    baseMs: BASE_MS,
    full: latest,
    earlier: echoImageOf(frame(30, BASE_MS - 600_000)),
    latest: echoImageOf(latest),
  };
  let asked = 0;
  const result = await runForecastCycle(cv, cycle, [10, 20, 30], async () => ++asked > 1);
  expect(result).toBeUndefined();
  expect(asked).toBe(2);
});

it('reads the displacement bilinearly at every cell, as the motion grid says (reference loop)', () => {
  const width = 37;
  const height = 23;
  const factor = 4;
  const mw = Math.ceil(width / factor);
  const mh = Math.ceil(height / factor);
  const wave = (i: number, k: number) => 3 * Math.sin(i * k) + 0.37 * (i % 5);
  const displacement = {
    width: mw,
    height: mh,
    factor,
    dx: Float32Array.from({ length: mw * mh }, (_, i) => wave(i, 1.3)),
    dy: Float32Array.from({ length: mw * mh }, (_, i) => wave(i, 0.7)),
  };
  const values = Float32Array.from({ length: width * height }, (_, i) => i);
  const [moved] = advectLayers({ width, height }, [values], displacement);
  // The reference: a clamped bilinear read of the motion grid at each cell's centre.
  const read = (a: Float32Array, x: number, y: number) => {
    const cx = Math.min(mw - 1, Math.max(0, x));
    const cy = Math.min(mh - 1, Math.max(0, y));
    const x0 = Math.min(mw - 2, Math.floor(cx));
    const y0 = Math.min(mh - 2, Math.floor(cy));
    const i = y0 * mw + x0;
    const top = a[i]! + (cx - x0) * (a[i + 1]! - a[i]!);
    const bottom = a[i + mw]! + (cx - x0) * (a[i + mw + 1]! - a[i + mw]!);
    return top + (cy - y0) * (bottom - top);
  };
  let inside = 0;
  for (let row = 0; row < height; row++)
    for (let column = 0; column < width; column++) {
      const gx = (column + 0.5) / factor - 0.5;
      const gy = (row + 0.5) / factor - 0.5;
      const sx = Math.round(column + read(displacement.dx, gx, gy));
      const sy = Math.round(row + read(displacement.dy, gx, gy));
      const expected =
        sx >= 0 && sx < width && sy >= 0 && sy < height ? values[sy * width + sx]! : NaN;
      if (!Number.isNaN(expected)) inside++;
      expect(moved![row * width + column]).toEqual(expected);
    }
  expect(inside).toBeGreaterThan(width * height * 0.5);
});

it('a type grid kept as bytes (a quarter of the memory) gives the very same forecast archives', async () => {
  const { cv } = await loadOpenCv();
  const latest = frame(40, BASE_MS);
  const cycle = (full: LoadedFrame) => ({
    baseMs: BASE_MS,
    full,
    earlier: echoImageOf(frame(30, BASE_MS - 600_000)),
    latest: echoImageOf(latest),
  });
  const compact = compactTypes(latest);
  expect(compact.types!.codes).toBeInstanceOf(Int8Array);
  const fromFloats = await runForecastCycle(cv, cycle(latest), [10, 30], async () => false);
  const fromBytes = await runForecastCycle(cv, cycle(compact), [10, 30], async () => false);
  expect(fromBytes!.map((a, i) => a.bytes.equals(fromFloats![i]!.bytes))).toEqual([true, true]);
});
