/**
 * Runs an npm script of this checkout (`npm start`, `npm run simulate -- ...`) as a user or a
 * process supervisor does: npm from PATH, in the repository root, in a process group of its
 * own so a test can send a signal to npm alone (a supervisor's `kill <pid>`) or to the whole
 * group (a terminal's Ctrl-C), and see whether any process of the tree is left afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

/** The repository root, where npm finds package.json. */
const ROOT = path.resolve(__dirname, '../..');

export interface NpmScript {
  readonly child: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  /** Waits until `pattern` appears in the output. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** npm's own exit: its code, or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whether any process of npm's process group (npm, its script, their children) is alive. */
  groupAlive(): boolean;
  /** SIGKILL to the whole group: cleanup after a failed test, never part of an assertion. */
  killGroup(): void;
}

/**
 * Starts `npm <args>` with only PATH, HOME and `env` in its environment (nothing of the test
 * runner's own configuration leaks into the service).
 */
export function runNpmScript(args: readonly string[], env: Record<string, string>): NpmScript {
  const child = spawn('npm', [...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const pgid = child.pid!;
  return {
    child,
    output: () => out,
    exited,
    async waitFor(pattern, timeoutMs = 60_000) {
      const started = Date.now();
      for (;;) {
        const match = out.match(pattern);
        if (match) return match;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`npm exited before ${pattern}:\n${out}`);
        if (Date.now() - started > timeoutMs)
          throw new Error(`timed out waiting for ${pattern}:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    groupAlive() {
      try {
        process.kill(-pgid, 0);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
        throw err;
      }
    },
    killGroup() {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

/** Whether a TCP connection to 127.0.0.1:`port` is accepted. */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
