/**
 * A small pool of worker threads that render frames. The API process embeds the simulator,
 * and a frame takes hundreds of milliseconds of CPU, so rendering must never run on the
 * event loop that answers requests.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FrameOptions } from './render-frame';
import type { RenderReply, RenderRequest, RenderWorkerData } from './render-worker';

/** Renders frames off the caller's thread. */
export interface RenderPool {
  /** Number of worker threads, i.e. how many frames render at once. */
  readonly size: number;
  /**
   * The archive of `timestamp`, rendered by the next free worker (jobs start in submission
   * order). Rejects when rendering fails or the pool is closed first.
   */
  render(timestamp: string): Promise<Buffer>;
  /** Rejects queued jobs, lets running ones finish, then terminates the workers. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link createRenderPool}: what every worker renders, and how many workers. */
export interface RenderPoolOptions extends FrameOptions {
  /** Worker threads (default: one less than the cores, at least 1, leaving a core to the API). */
  readonly size?: number;
}

/** Default pool size: all cores but one, at least one. */
export function defaultPoolSize(): number {
  return Math.max(1, availableParallelism() - 1);
}

interface Job {
  readonly timestamp: string;
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
export function createRenderPool(options: RenderPoolOptions = {}): RenderPool {
  const { size: requested, ...frame } = options;
  const size = requested ?? defaultPoolSize();
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`pool size must be a positive integer, got ${size}`);
  const entry = workerEntry();
  const workerData: RenderWorkerData = { kind: 'radar-render', frame };
  const queue: Job[] = [];
  const slots: Slot[] = [];
  const idle: Array<() => void> = [];
  let nextId = 1;
  let closing: Promise<void> | undefined;

  const spawn = (): Slot => {
    const slot: Slot = {
      worker: new Worker(entry.file, { execArgv: entry.execArgv, workerData }),
      job: undefined,
    };
    slot.worker.unref();
    slot.worker.on('message', (reply: RenderReply) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      finish(slot);
      if (reply.ok) job.resolve(Buffer.from(reply.bytes));
      else job.reject(new Error(`rendering ${job.timestamp} failed: ${reply.message}`));
    });
    const fail = (error: Error) => {
      const job = slot.job;
      slot.job = undefined;
      const index = slots.indexOf(slot);
      if (index >= 0) slots.splice(index, 1);
      job?.reject(
        new Error(`render worker died while rendering ${job.timestamp}: ${error.message}`),
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
      if (closing) return;
      if (slot.job) continue;
      const job = queue.shift();
      if (!job) return;
      slot.job = { ...job, id: nextId++ };
      slot.worker.ref();
      const request: RenderRequest = { id: slot.job.id, timestamp: job.timestamp };
      slot.worker.postMessage(request);
    }
  };

  for (let i = 0; i < size; i++) slots.push(spawn());

  return {
    size,
    render(timestamp) {
      if (closing) return Promise.reject(new Error('render pool is closed'));
      return new Promise<Buffer>((resolve, reject) => {
        queue.push({ timestamp, resolve, reject });
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
