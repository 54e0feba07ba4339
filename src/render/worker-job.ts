/**
 * The contract between the render pool and what its workers run. A job module is loaded once
 * per worker thread; its job turns one plain-data input (a timestamp, a grid, a file name) into
 * an archive, synchronously, on that thread.
 */
import type { PrecipTypeGrid } from '../domain/precip-type-grid';
import type { ReflectivityGrid } from '../domain/reflectivity-grid';
import type { FrameRenderOptions } from './render-frame';

/** Turns one input into archive bytes; throws to fail that input only. */
export type WorkerJob = (input: unknown) => Buffer;

/**
 * What a job module exports: `createWorkerJob(options)` is called once per worker with the
 * pool's job options (plain data), so per-thread set-up (a seeded field, scratch memory) is
 * paid once, not per frame.
 */
export interface WorkerJobModule {
  createWorkerJob(options: unknown): WorkerJob;
}

/** The job module every worker loads, and its options (plain data, cloned to each worker). */
export interface WorkerJobSpec {
  /**
   * Absolute path of a module exporting `createWorkerJob` ({@link WorkerJobModule}), without
   * its extension, so the same path loads the `.ts` source under tsx or jest and the `.js` in
   * dist. A module names itself with `jobModulePath(__filename)`.
   */
  readonly module: string;
  readonly options?: unknown;
}

/** The {@link WorkerJobSpec.module} of the module at `file` (its `__filename`). */
export function jobModulePath(file: string): string {
  return file.replace(/\.[cm]?[jt]s$/, '');
}

/**
 * An observed frame as a grid, the way its source renders it: what the nowcast worker reads
 * the base frame from and extrapolates (the forecast frames are drawn with the same render
 * options, source metadata and, when the frame is typed, the type grid moved along).
 */
export interface LoadedFrame {
  readonly grid: ReflectivityGrid;
  readonly types?: PrecipTypeGrid;
  /** The source's render options (zoom, PNG level, centre, source metadata). */
  readonly render: FrameRenderOptions;
}

/**
 * Turns one input of a source's render job (a timestamp, a file's bytes) into its grid instead
 * of its archive. A job module that feeds the nowcast exports `createFrameLoader(options)`
 * beside `createWorkerJob`, called once per nowcast worker with the same options.
 */
export type FrameLoader = (input: unknown) => LoadedFrame;

/** What a job module that feeds the nowcast exports besides {@link WorkerJobModule}. */
export interface FrameLoaderModule {
  createFrameLoader(options: unknown): FrameLoader;
}
