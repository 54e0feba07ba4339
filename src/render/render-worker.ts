/**
 * Worker-thread entry of the render pool: loads the pool's job module, runs it on each input
 * and transfers the archive bytes back without copying, then frees the job's grids at once.
 * Runs only inside a worker started by
 * `render-pool.ts`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { movable } from './movable-view';
import { releaseMemory } from './release-memory';
import type { WorkerJob, WorkerJobModule, WorkerJobSpec } from './worker-job';

/** Pool -> worker: make the archive of `input`. */
export interface RenderRequest {
  readonly id: number;
  readonly input: unknown;
}

/** Worker -> pool: the archive (its buffer is transferred), or why rendering failed. */
export type RenderReply =
  | { readonly id: number; readonly ok: true; readonly bytes: Uint8Array }
  | {
      readonly id: number;
      readonly ok: false;
      readonly message: string;
      /** The thrown error's `name` (e.g. `Grib2Error`), so the caller can tell bad input apart. */
      readonly errorName: string;
    };

/** `workerData` of a render worker. */
export interface RenderWorkerData {
  /** Marks a render worker, so importing this module anywhere else does nothing. */
  readonly kind: 'radar-render';
  readonly job: WorkerJobSpec;
}

/** Loads the job module (CommonJS `require`: the path has no extension, see WorkerJobSpec). */
function loadJob(spec: WorkerJobSpec): WorkerJob {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require(spec.module) as Partial<WorkerJobModule>;
  if (typeof loaded.createWorkerJob !== 'function')
    throw new Error(`${spec.module} exports no createWorkerJob`);
  return loaded.createWorkerJob(spec.options);
}

const port = parentPort;
const data = workerData as RenderWorkerData | undefined;
if (port && data?.kind === 'radar-render') {
  // A module that fails to load fails every job with its reason (a worker that died at start
  // would only be replaced by another that dies the same way).
  let job: WorkerJob;
  try {
    job = loadJob(data.job);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    job = () => {
      throw new Error(`job module failed to load: ${reason}`);
    };
  }
  port.on('message', (request: RenderRequest) => {
    let reply: RenderReply;
    try {
      const { view, transfer } = movable<Uint8Array>(job(request.input));
      reply = { id: request.id, ok: true, bytes: view };
      port.postMessage(reply, transfer);
    } catch (error) {
      reply = {
        id: request.id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
        errorName: error instanceof Error ? error.name : 'Error',
      };
      port.postMessage(reply);
    }
    // The job's grids are garbage now: give them back before the worker idles (see
    // release-memory.ts), not whenever its next job happens to collect.
    releaseMemory();
  });
}
