/**
 * The mrms scenario's pure parts: GDAL's colour file is the service's palette as a step
 * function (read back the way `gdaldem color-relief` reads it: linear between entries), and
 * the scenario's targets turn figures into verdicts.
 */
import { gdalStepPalette } from '../../../../tools/bench/mrms-conversion';
import { mrmsTargets, type MrmsBenchResult } from '../../../../tools/bench/mrms';
import { colorForDbz, hexToRgb } from '../../../../src/palette/palette';

/** The RGBA gdaldem gives `value` from a colour file: linear interpolation between entries. */
function relief(file: string, value: number): number[] {
  const entries = file
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('nv'))
    .map((line) => line.split(' ').map(Number));
  for (let i = 0; i < entries.length - 1; i++) {
    const [a, ...ca] = entries[i]!;
    const [b, ...cb] = entries[i + 1]!;
    if (value >= a! && value <= b!) {
      const t = b === a ? 0 : (value - a!) / (b! - a!);
      return ca.map((c, k) => Math.round(c + t * (cb[k]! - c)));
    }
  }
  throw new Error(`${value} outside the colour file`);
}

it('writes the palette as steps: every MRMS value gets its palette colour, markers none', () => {
  const file = gdalStepPalette();
  expect(file.split('\n')[0]).toBe('nv 0 0 0 0');
  // MRMS values are tenths of dBZ from -99 up, plus the -999 marker.
  for (let tenths = -990; tenths <= 800; tenths++) {
    const dbz = tenths / 10;
    const colour = colorForDbz(dbz);
    const expected = colour === undefined ? [0, 0, 0, 0] : [...hexToRgb(colour), 255];
    expect([dbz, relief(file, dbz)]).toEqual([dbz, expected]);
  }
  expect(relief(file, -999)).toEqual([0, 0, 0, 0]);
});

function result(
  cpu: [number, number],
  wall: [number, number],
  rssMiB: number,
  p95Ms: number,
  typedBytes = 120,
) {
  const cost = (wallS: number, cpuS: number, peakRssMiB: number) => ({ wallS, cpuS, peakRssMiB });
  return {
    measuredAt: '2026-01-01T00:00:00Z',
    command: 'npm run bench -- --only mrms',
    code: 'commit x',
    loadAverage: '1 1 1',
    conversion: {
      file: 'f',
      runs: 3,
      ours: { ...cost(wall[0], cpu[0], rssMiB), tiles: 225, bytes: 100 },
      typed: { ...cost(wall[0], cpu[0], rssMiB), tiles: 225, bytes: typedBytes },
      gdal: {
        ...cost(wall[1], cpu[1], 800),
        tiles: 1000,
        bytes: 1,
        steps: { gunzip: cost(0, 0, 1), gdaldem: cost(0, 0, 1), gdal2tiles: cost(0, 0, 1) },
      },
      gdalVersion: 'GDAL 3.6.2',
      cpuRatio: cpu[0] / cpu[1],
      wallRatio: wall[0] / wall[1],
      typedCpuRatio: cpu[0] / cpu[1],
      typedWallRatio: wall[0] / wall[1],
      typedSizeRatio: typedBytes / 100,
    },
    publishVisible: {
      uploads: 10,
      missed: 0,
      p50Ms: 4000,
      p95Ms,
      maxMs: p95Ms,
      samplesMs: [],
      mrmsPollS: 2,
      ingestPollS: 5,
    },
  } satisfies MrmsBenchResult;
}

it('judges CPU and wall against half of GDAL, RSS against 600 MB, publish-to-visible against 10 s', () => {
  const met = mrmsTargets(result([1.2, 7.5], [1.2, 5.2], 400, 8000));
  expect(met.map((t) => [t.name, t.met])).toEqual([
    ['MRMS conversion CPU vs GDAL', true],
    ['MRMS conversion wall time vs GDAL', true],
    ['MRMS conversion peak RSS', true],
    ['MRMS typed conversion CPU vs GDAL untyped', true],
    ['MRMS typed conversion wall time vs GDAL untyped', true],
    ['MRMS typed archive size', true],
    ['MRMS publish-to-visible', true],
  ]);
  const missed = mrmsTargets(result([4, 7.5], [3, 5.2], 600, 10_500, 126));
  expect(missed.map((t) => t.met)).toEqual([false, false, false, false, false, false, false]); // 600 MiB > 600 MB
  expect(missed[2]!.value).toBeCloseTo(629.1, 1);
});

it('judges the typed conversion against a quarter of GDAL untyped and its archive against 1.25x', () => {
  // Half of GDAL meets the untyped targets but not the typed quarter; 125 % is at the limit.
  const half = mrmsTargets(result([3, 6], [2, 4], 400, 8000, 125));
  expect(half.map((t) => [t.name, t.met])).toEqual([
    ['MRMS conversion CPU vs GDAL', true],
    ['MRMS conversion wall time vs GDAL', true],
    ['MRMS conversion peak RSS', true],
    ['MRMS typed conversion CPU vs GDAL untyped', false],
    ['MRMS typed conversion wall time vs GDAL untyped', false],
    ['MRMS typed archive size', true],
    ['MRMS publish-to-visible', true],
  ]);
});
