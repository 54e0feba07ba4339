/**
 * Rendering a grid the caller already holds, off the caller's thread: the grid's values move to
 * a render worker (transferred, not copied: a CONUS mosaic is 98 MB) and the archive comes back.
 * For a source that decodes on its own thread; a source whose decoding is itself heavy runs it
 * in the worker instead, with its own job module (see worker-job.ts), as both producers do (the
 * simulator's `sim/simulator-frame.ts`, MRMS's `sources/mrms/mrms-frame.ts`). Today the figure
 * tool (`tools/render-figures.ts`) renders its hand-made grids through it, and the pool's tests
 * use it to hold a grid job to the same bytes as a direct `renderFrame`.
 */
import { types } from 'node:util';
import type { ReflectivityGrid } from '../domain/reflectivity-grid';
import { checkFrameRenderOptions, type FrameRenderOptions, renderFrame } from './render-frame';
import { movable } from './movable-view';
import { createRenderPool, type RenderPool } from './render-pool';
import { jobModulePath, type WorkerJob } from './worker-job';

/** Renders grids in worker threads. */
export interface GridRenderPool {
  /** Number of worker threads, i.e. how many grids render at once. */
  readonly size: number;
  /**
   * The archive of `grid`, as {@link renderFrame} makes it. The grid's `values` are moved to
   * the worker: unless they live in a SharedArrayBuffer (shared) or in part of a larger buffer
   * (copied, see movable-view.ts), the caller's array is empty (detached) once this is called,
   * so pass a copy to keep the values. Rejects like the pool does (a bad
   * grid: the renderer's RangeError message).
   */
  render(grid: ReflectivityGrid): Promise<Buffer>;
  /** See {@link RenderPool.close}. */
  close(): Promise<void>;
}

/** Options of {@link createGridRenderPool}. */
export interface GridRenderPoolOptions {
  /** How every grid is rendered. */
  readonly render?: FrameRenderOptions;
  /** Worker threads (default: one less than the cores, at least 1). */
  readonly size?: number;
}

/** Starts a pool of workers that render grids with `options.render`. */
export function createGridRenderPool(options: GridRenderPoolOptions = {}): GridRenderPool {
  const render = options.render ?? {};
  checkFrameRenderOptions(render);
  const pool: RenderPool<ReflectivityGrid> = createRenderPool({
    size: options.size,
    job: { module: jobModulePath(__filename), options: render },
  });
  return {
    size: pool.size,
    render: (grid) => {
      // Not a Float32Array: the worker refuses the grid with the renderer's reason.
      if (!types.isFloat32Array(grid.values)) return pool.render(grid);
      const { view, transfer } = movable(grid.values);
      return pool.render(view === grid.values ? grid : { ...grid, values: view }, transfer);
    },
    close: () => pool.close(),
  };
}

/** Worker side: renders each grid it receives with the pool's options. */
export function createWorkerJob(options: unknown): WorkerJob {
  const render = options as FrameRenderOptions;
  return (input) => renderFrame(input as ReflectivityGrid, render);
}
