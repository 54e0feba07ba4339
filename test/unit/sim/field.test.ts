import { parseTimestamp } from '../../../src/domain/timestamps';
import {
  CONUS_BOUNDS,
  createReflectivityField,
  dbzAt,
  NO_ECHO_DBZ,
  type FieldGrid,
} from '../../../src/sim/field';

const T0 = parseTimestamp('202611221400')!;
// Plain comparisons in the per-cell loops: global lookups (Math, Number) are slow under jest's vm.
const { isFinite } = Number;
const TWO_MINUTES = 120_000;

function stats(grid: FieldGrid) {
  let max = -Infinity;
  let visible = 0;
  let nonFinite = 0;
  for (const v of grid.dbz) {
    if (!isFinite(v)) nonFinite++;
    if (v > max) max = v;
    if (v >= 5) visible++;
  }
  return { max, coverage: visible / grid.dbz.length, nonFinite };
}

describe('reflectivity field', () => {
  const field = createReflectivityField();

  it('covers CONUS on a regular grid', () => {
    const grid = field.sample(T0);
    expect(grid.bounds).toEqual(CONUS_BOUNDS);
    expect(grid.cols).toBe(Math.round(59 / grid.stepDeg) + 1);
    expect(grid.rows).toBe(Math.round(26 / grid.stepDeg) + 1);
    expect(grid.dbz).toHaveLength(grid.cols * grid.rows);
  });

  it('is deterministic: same seed and instant give the same values, on a fresh instance too', () => {
    const a = field.sample(T0);
    const b = createReflectivityField().sample(T0);
    expect(Buffer.from(b.dbz.buffer).equals(Buffer.from(a.dbz.buffer))).toBe(true);
  });

  it('depends on the seed', () => {
    const a = field.sample(T0);
    const b = createReflectivityField({ seed: 7 }).sample(T0);
    expect(Buffer.from(b.dbz.buffer).equals(Buffer.from(a.dbz.buffer))).toBe(false);
  });

  it('changes only a little between consecutive 2-minute frames', () => {
    let previous = field.sample(T0);
    for (let k = 1; k <= 5; k++) {
      const next = field.sample(T0 + k * TWO_MINUTES);
      let sum = 0;
      let changed = 0;
      let echo = 0;
      for (let i = 0; i < next.dbz.length; i++) {
        const a = next.dbz[i]!;
        const b = previous.dbz[i]!;
        const d = a > 0 ? (b > 0 ? (a > b ? a - b : b - a) : a) : b > 0 ? b : 0;
        sum += d;
        if (d > 0) changed++;
        if (a >= 5 || b >= 5) echo++;
      }
      expect(changed).toBeGreaterThan(0); // the weather moves...
      // ... but smoothly: measured about 0.5-0.7 dBZ mean change where there is echo.
      expect(sum / echo).toBeLessThan(1.5);
      expect(sum / next.dbz.length).toBeLessThan(0.3);
      previous = next;
    }
  });

  it('has convective cores of at least 40 dBZ and some rain at every hour of the day', () => {
    for (let hour = 0; hour < 24; hour += 3) {
      const { max, coverage, nonFinite } = stats(field.sample(T0 + hour * 3_600_000));
      expect(nonFinite).toBe(0);
      expect(max).toBeGreaterThanOrEqual(40);
      expect(max).toBeLessThan(80);
      expect(coverage).toBeGreaterThan(0.02);
      expect(coverage).toBeLessThan(0.5);
    }
  });

  it('moves echoes eastwards over an hour', () => {
    const centroid = (grid: FieldGrid) => {
      let sum = 0;
      let weight = 0;
      for (let r = 0; r < grid.rows; r++) {
        for (let c = 0; c < grid.cols; c++) {
          const v = grid.dbz[r * grid.cols + c]!;
          if (v >= 30) {
            sum += c * v;
            weight += v;
          }
        }
      }
      return (sum / weight) * grid.stepDeg;
    };
    // Only echoes that persist: compare the same storms 30 minutes apart.
    const shift = centroid(field.sample(T0 + 1_800_000)) - centroid(field.sample(T0));
    expect(shift).toBeGreaterThan(0);
  });

  it('interpolates bilinearly and reports no echo outside the grid', () => {
    const grid = field.sample(T0);
    const { west, north } = grid.bounds;
    const step = grid.stepDeg;
    const at = (c: number, r: number) => grid.dbz[r * grid.cols + c]!;
    expect(dbzAt(grid, west + 10 * step, north - 20 * step)).toBeCloseTo(at(10, 20), 4);
    const mid = dbzAt(grid, west + 10.5 * step, north - 20.5 * step);
    expect(mid).toBeCloseTo((at(10, 20) + at(11, 20) + at(10, 21) + at(11, 21)) / 4, 4);
    expect(dbzAt(grid, -130, 40)).toBe(NO_ECHO_DBZ);
    expect(dbzAt(grid, -100, 51)).toBe(NO_ECHO_DBZ);
  });
});
