/**
 * Child processes of the local stack: started with an environment, their output prefixed
 * with a name, stopped with SIGTERM (then SIGKILL after a grace period).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';

export interface StackChild {
  readonly name: string;
  readonly process: ChildProcess;
  stop(graceMs?: number): Promise<void>;
}

/** Starts `node entry` with `env` added to this process's environment. */
export function startChild(
  name: string,
  entry: string,
  env: Record<string, string>,
  options: { args?: string[]; echo?: (line: string) => void } = {},
): StackChild {
  const child = spawn(process.execPath, [entry, ...(options.args ?? [])], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const echo = options.echo ?? ((line: string) => process.stdout.write(`[${name}] ${line}\n`));
  readline.createInterface({ input: child.stdout! }).on('line', echo);
  readline.createInterface({ input: child.stderr! }).on('line', echo);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    process: child,
    async stop(graceMs = 35_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
