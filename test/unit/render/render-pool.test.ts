import { PMTiles } from 'pmtiles';
import {
  NO_COVERAGE_MARKER,
  NO_ECHO_MARKER,
  type ReflectivityGrid,
} from '../../../src/domain/reflectivity-grid';
import { createGridRenderPool, type GridRenderPool } from '../../../src/render/grid-render-pool';
import { renderFrame } from '../../../src/render/render-frame';
import {
  createRenderPool,
  defaultPoolSize,
  type RenderPool,
} from '../../../src/render/render-pool';
import {
  createSimulatorFrameRenderer,
  createSimulatorPool,
} from '../../../src/sim/simulator-frame';
import { createBufferSource } from '../../fixtures/buffer-source';

async function metadataOf(archive: Buffer): Promise<Record<string, unknown>> {
  return (await new PMTiles(createBufferSource(archive)).getMetadata()) as Record<string, unknown>;
}

/** 300 x 200 cells of 0.05 degree over Kansas with a ring of echo and a coverage gap. */
function ringGrid(values?: Float32Array): ReflectivityGrid {
  const width = 300;
  const height = 200;
  const v = values ?? new Float32Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const d = Math.hypot(c - 150, r - 100);
      v[r * width + c] =
        c < 20 ? NO_COVERAGE_MARKER : d > 40 && d < 60 ? 20 + d / 2 : NO_ECHO_MARKER;
    }
  }
  return {
    width,
    height,
    west: -104.975,
    north: 41.975,
    dLon: 0.05,
    dLat: 0.05,
    values: v,
    noCoverage: NO_COVERAGE_MARKER,
    noEcho: NO_ECHO_MARKER,
    product: 'ring',
    validTimeMs: Date.UTC(2026, 10, 22, 14, 0),
  };
}

describe('render pool (worker threads started from the .ts sources under jest)', () => {
  let pool: RenderPool<string> | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('defaults to one worker less than the cores, at least one', () => {
    expect(defaultPoolSize()).toBeGreaterThanOrEqual(1);
  });

  it('renders the same simulator archive as the in-process renderer', async () => {
    pool = createSimulatorPool({ size: 2, maxZoom: 3 });
    const [a, b] = await Promise.all([pool.render('202611221400'), pool.render('202611221402')]);
    const local = createSimulatorFrameRenderer({ maxZoom: 3 });
    expect(a!.equals(local.render('202611221400'))).toBe(true);
    expect(b!.equals(local.render('202611221402'))).toBe(true);
    expect((await metadataOf(a!)).timestamp).toBe('202611221400');
  });

  it('queues more jobs than workers and completes them all', async () => {
    pool = createSimulatorPool({ size: 1, maxZoom: 2 });
    const stamps = ['202611221400', '202611221402', '202611221404', '202611221406'];
    const archives = await Promise.all(stamps.map((ts) => pool!.render(ts)));
    for (const [i, archive] of archives.entries())
      expect((await metadataOf(archive)).timestamp).toBe(stamps[i]);
  });

  it('rejects a job that fails and keeps working', async () => {
    pool = createSimulatorPool({ size: 1, maxZoom: 1 });
    await expect(pool.render('202613301400')).rejects.toThrow(/invalid timestamp/);
    await expect(pool.render('202611221400')).resolves.toBeInstanceOf(Buffer);
  });

  it('refuses bad options in the caller, before any worker starts', () => {
    expect(() => createSimulatorPool({ maxZoom: 13 })).toThrow(RangeError);
    expect(() => createGridRenderPool({ render: { maxZoom: -1 } })).toThrow(RangeError);
  });

  it('closes cleanly: queued jobs are rejected, running ones finish, later ones are refused', async () => {
    pool = createSimulatorPool({ size: 1, maxZoom: 2 });
    const running = pool.render('202611221400');
    const queued = pool.render('202611221402');
    const closed = pool.close();
    await expect(queued).rejects.toThrow(/closed/);
    await expect(running).resolves.toBeInstanceOf(Buffer);
    await closed;
    await expect(pool.render('202611221404')).rejects.toThrow(/closed/);
    await pool.close(); // idempotent
  });

  it('fails every job of a job module that does not load, with the reason, and keeps answering', async () => {
    pool = createRenderPool<string>({ size: 1, job: { module: '/nonexistent/radar-job' } });
    await expect(pool.render('a')).rejects.toThrow(/job module failed to load: .*radar-job/);
    await expect(pool.render('b')).rejects.toThrow(/job module failed to load/);
  });
});

describe('grid render pool', () => {
  let pool: GridRenderPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('renders a grid in a worker to the same bytes as in-process, moving its values there', async () => {
    pool = createGridRenderPool({ size: 1, render: { maxZoom: 6 } });
    const expected = renderFrame(ringGrid(), { maxZoom: 6 });
    const grid = ringGrid();
    const archive = await pool.render(grid);
    expect(archive.equals(expected)).toBe(true);
    expect(grid.values.length).toBe(0); // transferred: the caller's array is detached
    expect((await metadataOf(archive)).product).toBe('ring');
  });

  it('shares values in a SharedArrayBuffer instead of moving them', async () => {
    pool = createGridRenderPool({ size: 1, render: { maxZoom: 4 } });
    const shared = new Float32Array(new SharedArrayBuffer(300 * 200 * 4));
    const grid = ringGrid(shared);
    const archive = await pool.render(grid);
    expect(grid.values.length).toBe(300 * 200);
    expect(archive.equals(renderFrame(ringGrid(), { maxZoom: 4 }))).toBe(true);
  });

  it("rejects a bad grid with the renderer's reason and keeps working", async () => {
    pool = createGridRenderPool({ size: 1, render: { maxZoom: 3 } });
    await expect(pool.render({ ...ringGrid(), dLon: 0 })).rejects.toThrow(/cell size/);
    const detached = ringGrid();
    await pool.render(detached);
    await expect(pool.render(detached)).rejects.toThrow(/detached/);
    await expect(pool.render(ringGrid())).resolves.toBeInstanceOf(Buffer);
  });
});
