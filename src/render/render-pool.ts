/**
 * A small pool of worker threads that turn frame inputs into archives. A frame takes hundreds
 * of milliseconds of CPU (decoding, rendering, packing), and the API process may embed a
 * producer, so that work must never run on the event loop that answers requests; with several
 * workers, frames render on several cores at once.
 *
 * What a worker does with an input is a job module's business (see worker-job.ts): the
 * simulator's job samples its weather at a timestamp, the grid job renders a grid it is handed,
 * and a decoder's job could read a file; each ends in the one renderer.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { RenderReply, RenderRequest, RenderWorkerData } from './render-worker';
import type { WorkerJobSpec } from './worker-job';

/** Turns inputs into archives off the caller's thread. */
export interface RenderPool<Input> {
  /** Number of worker threads, i.e. how many frames render at once. */
  readonly size: number;
  /**
   * The archive of `input`, made by the next free worker (jobs start in submission order).
   * `input` is copied to the worker (structured clone) except the buffers in `transfer`, which
   * are moved (and unusable in the caller afterwards). Rejects when the job fails or the pool
   * is closed first.
   */
  render(input: Input, transfer?: readonly ArrayBuffer[]): Promise<Buffer>;
  /** Rejects queued jobs, lets running ones finish, then terminates the workers. Idempotent. */
  close(): Promise<void>;
}

/**
 * A job that threw in its worker. Errors do not keep their class across threads, so the
 * thrown error's `name` travels as {@link RenderJobError.jobErrorName}: a source tells its own
 * bad-input errors (a corrupt file) from failures of the job itself by it.
 */
export class RenderJobError extends Error {
  constructor(
    message: string,
    /** `name` of the error the job threw (`Error`, `RangeError`, `Grib2Error`, ...). */
    readonly jobErrorName: string,
  ) {
    super(message);
    this.name = 'RenderJobError';
  }
}

/**
 * The worker rendering an input died (its heap limit reached, or it exited): the input is the
 * likely cause, so a source refuses it rather than retrying. `outOfMemory` when the worker hit
 * its `resourceLimits`.
 */
export class RenderWorkerDiedError extends Error {
  constructor(
    message: string,
    readonly outOfMemory: boolean,
  ) {
    super(message);
    this.name = 'RenderWorkerDiedError';
  }
}

/** Options of {@link createRenderPool}: what every worker runs, and how many workers. */
export interface RenderPoolOptions {
  readonly job: WorkerJobSpec;
  /**
   * Heap limits of each worker: a job past them ends its worker alone (the job rejects with
   * {@link RenderWorkerDiedError}, a new worker takes its place), never the whole process.
   */
  readonly resourceLimits?: ResourceLimits;
  /** Worker threads (default: one less than the cores, at least 1, leaving a core to the API). */
  readonly size?: number;
}

/** Default pool size: all cores but one, at least one. */
export function defaultPoolSize(): number {
  return Math.max(1, availableParallelism() - 1);
}

interface Job {
  readonly input: unknown;
  readonly transfer: readonly ArrayBuffer[];
  readonly resolve: (bytes: Buffer) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: (Job & { id: number }) | undefined;
}

/**
 * How to start the worker script next to this module: the compiled `.js` as is, or the `.ts`
 * source through tsx's CommonJS hook when running from sources (jest, tsx). Node 20 workers
 * do not apply `--import tsx`, `--require tsx/cjs` works.
 */
function workerEntry(): { file: string; execArgv: string[] } {
  if (__filename.endsWith('.ts')) {
    return {
      file: join(__dirname, 'render-worker.ts'),
      execArgv: ['--require', require.resolve('tsx/cjs')],
    };
  }
  return { file: join(__dirname, 'render-worker.js'), execArgv: [] };
}

/**
 * Starts the workers at once (so the first frame does not pay their start-up). Idle workers
 * are unref'd: an idle pool never keeps the process alive, a busy one does.
 */
export function createRenderPool<Input>(options: RenderPoolOptions): RenderPool<Input> {
  const size = options.size ?? defaultPoolSize();
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`pool size must be a positive integer, got ${size}`);
  const entry = workerEntry();
  const workerData: RenderWorkerData = { kind: 'radar-render', job: options.job };
  const queue: Job[] = [];
  const slots: Slot[] = [];
  const idle: Array<() => void> = [];
  let nextId = 1;
  let closing: Promise<void> | undefined;

  const spawn = (): Slot => {
    const slot: Slot = {
      worker: new Worker(entry.file, {
        execArgv: entry.execArgv,
        workerData,
        resourceLimits: options.resourceLimits,
      }),
      job: undefined,
    };
    slot.worker.unref();
    slot.worker.on('message', (reply: RenderReply) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      finish(slot);
      if (reply.ok) {
        const { bytes } = reply;
        job.resolve(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      } else {
        job.reject(
          new RenderJobError(
            `rendering ${describe(job.input)} failed: ${reply.message}`,
            reply.errorName,
          ),
        );
      }
    });
    const fail = (error: Error) => {
      const job = slot.job;
      slot.job = undefined;
      const index = slots.indexOf(slot);
      if (index >= 0) slots.splice(index, 1);
      const outOfMemory = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      job?.reject(
        new RenderWorkerDiedError(
          `render worker died while rendering ${describe(job.input)}: ${error.message}`,
          outOfMemory,
        ),
      );
      if (!closing) {
        slots.push(spawn());
        dispatch();
      }
      settleIdle();
    };
    slot.worker.on('error', fail);
    slot.worker.on('exit', (code) => {
      if (slots.includes(slot)) fail(new Error(`exit code ${code}`));
    });
    return slot;
  };

  const finish = (slot: Slot) => {
    slot.job = undefined;
    slot.worker.unref();
    dispatch();
    settleIdle();
  };

  const settleIdle = () => {
    if (slots.some((s) => s.job)) return;
    for (const wake of idle.splice(0)) wake();
  };

  const dispatch = () => {
    for (const slot of slots) {
      while (!closing && !slot.job) {
        const job = queue.shift();
        if (!job) return;
        const request: RenderRequest = { id: nextId++, input: job.input };
        // Node drops a message whose transfer list holds a detached buffer without a word;
        // left out of the list, such a buffer makes postMessage throw instead (handled below).
        const transfer = job.transfer.filter((buffer) => buffer.byteLength > 0);
        try {
          slot.worker.postMessage(request, transfer);
        } catch (error) {
          // An input that cannot be cloned or moved (a detached buffer, a function) fails alone.
          job.reject(new Error(`cannot send ${describe(job.input)} to a worker: ${String(error)}`));
          continue;
        }
        slot.job = { ...job, id: request.id };
        slot.worker.ref();
      }
      if (closing) return;
    }
  };

  for (let i = 0; i < size; i++) slots.push(spawn());

  return {
    size,
    render(input, transfer = []) {
      if (closing) return Promise.reject(new Error('render pool is closed'));
      return new Promise<Buffer>((resolve, reject) => {
        queue.push({ input, transfer, resolve, reject });
        dispatch();
      });
    },
    close() {
      closing ??= (async () => {
        for (const job of queue.splice(0)) job.reject(new Error('render pool is closed'));
        if (slots.some((s) => s.job)) await new Promise<void>((wake) => idle.push(wake));
        const workers = slots.splice(0).map((s) => s.worker);
        await Promise.all(workers.map((w) => w.terminate()));
      })();
      return closing;
    },
  };
}

/** A short name of an input for error messages: a string or a file's name as is, else its kind. */
function describe(input: unknown): string {
  if (typeof input === 'string') return input;
  if (typeof input === 'object' && input !== null) {
    const { product, validTimeMs, name } = input as {
      product?: unknown;
      validTimeMs?: unknown;
      name?: unknown;
    };
    if (typeof name === 'string') return name; // a source file
    if (typeof product === 'string' && Number.isFinite(validTimeMs))
      return `${product} at ${new Date(validTimeMs as number).toISOString()}`;
  }
  return 'a frame';
}
