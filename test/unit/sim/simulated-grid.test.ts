import { gridExtent, gridProblem } from '../../../src/domain/reflectivity-grid';
import { parseTimestamp } from '../../../src/domain/timestamps';
import { CONUS_BOUNDS, createReflectivityField, dbzAt } from '../../../src/sim/field';
import { createSimulatedGrids, SIMULATOR_PRODUCT } from '../../../src/sim/simulated-grid';

const T0 = parseTimestamp('202611222200')!;

describe('simulated grids', () => {
  const source = createSimulatedGrids({ maxZoom: 7 });
  const grid = source.grid(T0);

  it('fill the CONUS box exactly, with cells no larger than a z7 pixel', () => {
    expect(gridProblem(grid)).toBeUndefined();
    const e = gridExtent(grid);
    for (const side of ['west', 'south', 'east', 'north'] as const)
      expect(e[side]).toBeCloseTo(CONUS_BOUNDS[side], 9);
    const z7Pixel = 360 / (256 * 128);
    expect(grid.dLon).toBeLessThanOrEqual(z7Pixel);
    expect(grid.dLat).toBeLessThanOrEqual(z7Pixel);
    expect(grid.dLon).toBeGreaterThan(0.99 * z7Pixel);
    expect(grid).toMatchObject({ product: SIMULATOR_PRODUCT, validTimeMs: T0 });
  });

  it("hold the field's weather, bilinearly interpolated at each cell centre", () => {
    const field = createReflectivityField().sample(T0);
    const { width } = grid;
    let checked = 0;
    let echo = 0;
    for (let r = 3; r < grid.height; r += 97) {
      for (let c = 5; c < width; c += 89) {
        const expected = dbzAt(field, grid.west + c * grid.dLon, grid.north - r * grid.dLat);
        expect(grid.values[r * width + c]).toBeCloseTo(expected, 3);
        checked++;
        if (expected >= 5) echo++;
      }
    }
    expect(checked).toBeGreaterThan(500);
    expect(echo).toBeGreaterThan(10);
  });

  it('follow the resolution setting and the zoom: the coarser of the two never wins', () => {
    const low = createSimulatedGrids({ maxZoom: 2 }).grid(T0);
    expect(low.dLon).toBeLessThanOrEqual(0.05); // the field's own step, finer than a z2 pixel
    expect(low.dLon).toBeGreaterThan(0.049);
    const deep = createSimulatedGrids({ maxZoom: 12 }).grid(T0);
    expect(deep.width).toBe(grid.width); // capped at z7's pixel: about 1 km, like MRMS
  });

  it('are deterministic in seed and time', () => {
    const again = createSimulatedGrids({ maxZoom: 7 }).grid(T0);
    expect(Buffer.from(again.values.buffer).equals(Buffer.from(grid.values.buffer))).toBe(true);
    const other = createSimulatedGrids({ maxZoom: 7, seed: 7 }).grid(T0);
    expect(Buffer.from(other.values.buffer).equals(Buffer.from(grid.values.buffer))).toBe(false);
  });
});
