/**
 * Runs the built entry point (`node dist/bin/api.js`) as a real process, as `npm start` does,
 * and collects its output. `npm test` builds before jest runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const API_ENTRY = path.resolve(__dirname, '../../dist/bin/api.js');

import { freePort } from '../../tools/stack/free-port';

export { freePort };

export interface SpawnedProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Waits until `pattern` appears in stderr or stdout. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnNode(
  entry: string,
  options: { cwd: string; env: Record<string, string>; args?: string[] },
): SpawnedProcess {
  const child = spawn(process.execPath, [entry, ...(options.args ?? [])], {
    cwd: options.cwd,
    // A follower in a test publishes a frame without a PrecipFlag file at once (no wait), as
    // the feeds of most tests hold none; the typed follow-mode tests set their own wait.
    env: { PATH: process.env.PATH ?? '', MRMS_TYPE_WAIT_S: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async waitFor(pattern, timeoutMs = 20_000) {
      const started = Date.now();
      for (;;) {
        const match = (err + out).match(pattern);
        if (match) return match;
        if (child.exitCode !== null)
          throw new Error(`process exited (${child.exitCode}) before ${pattern}:\n${err}\n${out}`);
        if (Date.now() - started > timeoutMs)
          throw new Error(`timed out waiting for ${pattern}:\n${err}\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** The built API started as a newcomer's `npm start`, with the demo credentials it printed. */
export interface StartedApi {
  readonly proc: SpawnedProcess;
  /** `http://127.0.0.1:<PORT>`, the public API. */
  readonly base: string;
  /** `http://127.0.0.1:<ADMIN_PORT>`, health and metrics. */
  readonly admin: string;
  /** The demo API key and app id the start-up banner printed. */
  readonly key: string;
  readonly app: string;
  /** `key` and `app` as the request headers a client sends. */
  readonly headers: Record<string, string>;
}

/**
 * Starts `dist/bin/api.js` in `cwd` on two free loopback ports (PORT, ADMIN_PORT, HOST) with
 * `env` on top, and resolves once the banner has printed the demo key and app id. The caller
 * stops `proc`; if the banner never comes, the process is stopped here and the error (with its
 * output) thrown.
 */
export async function startApi(cwd: string, env: Record<string, string>): Promise<StartedApi> {
  const [port, adminPort] = [await freePort(), await freePort()];
  const proc = spawnNode(API_ENTRY, {
    cwd,
    env: { PORT: String(port), ADMIN_PORT: String(adminPort), HOST: '127.0.0.1', ...env },
  });
  try {
    const [, key] = await proc.waitFor(/API key: (\S+)/);
    const [, app] = await proc.waitFor(/App id:\s+(\S+)/);
    return {
      proc,
      base: `http://127.0.0.1:${port}`,
      admin: `http://127.0.0.1:${adminPort}`,
      key: key!,
      app: app!,
      headers: { Authorization: `Bearer ${key}`, 'X-App': `Bearer ${app}` },
    };
  } catch (error) {
    await proc.stop('SIGKILL');
    throw error;
  }
}
