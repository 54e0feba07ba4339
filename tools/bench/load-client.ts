/**
 * Orchestrator side of the load generator: one long-lived child process running
 * `load-generator.ts`, jobs sent over IPC one at a time.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { FromGenerator, LoadJob, LoadResult } from './load-job';

export interface LoadGenerator {
  readonly pid: number;
  run(job: LoadJob): Promise<LoadResult>;
  stop(): Promise<void>;
}

export async function startLoadGenerator(): Promise<LoadGenerator> {
  const child: ChildProcess = fork(path.join(__dirname, 'load-generator.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<
    number,
    { resolve: (r: LoadResult) => void; reject: (e: Error) => void }
  >();
  let nextId = 1;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`load generator exited (${code}) before it was ready`)),
    );
    child.on('message', (message: FromGenerator) => {
      if (message.type === 'ready') return resolve();
      const waiter = pending.get(message.id);
      if (!waiter) return;
      pending.delete(message.id);
      if (message.type === 'result') waiter.resolve(message.result);
      else waiter.reject(new Error(message.message));
    });
  });
  child.on('exit', (code) => {
    for (const waiter of pending.values())
      waiter.reject(new Error(`load generator exited (${code})`));
    pending.clear();
  });
  return {
    pid: child.pid!,
    run(job) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ type: 'run', id, job });
      });
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.send({ type: 'exit' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
