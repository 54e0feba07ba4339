/**
 * The contract between the render pool and what its workers run. A job module is loaded once
 * per worker thread; its job turns one plain-data input (a timestamp, a grid, a file name) into
 * an archive, synchronously, on that thread.
 */

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
