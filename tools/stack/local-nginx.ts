/**
 * A local `nginx` (Debian's binary) running the shipped `nginx/nginx.conf`, rendered for
 * loopback ports and a prefix directory, in front of local API replicas: the edge of
 * `npm run stack` and of the e2e tests. Run in the foreground (`daemon off`) as a child of the
 * caller, who ends it with `stop()`; upstreams change with `reload` (validated with `nginx -t`,
 * then SIGHUP).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import readline from 'node:readline';
import { freePort } from './free-port';
import { NGINX_TEMPLATE_PATH, renderNginxConfig, type NginxRenderOptions } from './render-nginx';

export interface LocalNginxOptions {
  /** Replica public addresses, `host:port`. */
  readonly upstreams: readonly string[];
  /** Public port (0 or absent: a free one). */
  readonly port?: number;
  /** Directory for the rendered config, pid, logs and temporary files (created if needed). */
  readonly prefixDir: string;
  /** The nginx binary; default `/usr/sbin/nginx` when present, else `nginx` on PATH. */
  readonly binary?: string;
  /** Template to render; default the shipped `nginx/nginx.conf`. */
  readonly templatePath?: string;
  readonly workerProcesses?: NginxRenderOptions['workerProcesses'];
  readonly upstreamKeepaliveTimeoutS?: number;
  /** Per-address flood limits; default the shipped ones. */
  readonly floodLimits?: NginxRenderOptions['floodLimits'];
  /** Receives nginx's stderr lines (its error log); default: kept for error messages only. */
  readonly onLog?: (line: string) => void;
}

export interface LocalNginx {
  readonly port: number;
  readonly statusPort: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly configFile: string;
  readonly accessLogFile: string;
  readonly process: ChildProcess;
  /** nginx's recent stderr (its error log, last 64 KiB). */
  errors(): string;
  /** Renders the config for new upstreams, checks it with `nginx -t`, reloads (SIGHUP). */
  reload(upstreams: readonly string[]): Promise<void>;
  /** Fast shutdown (SIGTERM, SIGKILL after 5 s); resolves when the master has exited. */
  stop(): Promise<void>;
}

const INSTALL_HINT = 'install it (Debian: apt-get install nginx-light)';

function defaultBinary(): string {
  return (
    ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'].find((p) =>
      existsSync(p),
    ) ?? 'nginx'
  );
}

/** Runs `nginx -t` on a config; rejects with nginx's own message when it is invalid or missing. */
export function checkNginxConfig(
  configFile: string,
  options: { binary?: string; prefixDir?: string } = {},
): Promise<void> {
  const binary = options.binary ?? defaultBinary();
  const prefix = options.prefixDir ?? path.dirname(configFile);
  return new Promise((resolve, reject) => {
    // stdout to /dev/null, not a pipe: Node's pipes are sockets, and `access_log /dev/stdout`
    // cannot open a socket through /dev/stdout.
    const child = spawn(
      binary,
      ['-t', '-q', '-p', `${prefix}/`, '-e', 'stderr', '-c', configFile],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT'
          ? new Error(`nginx binary "${binary}" not found; ${INSTALL_HINT}`)
          : err,
      ),
    );
    child.once('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`nginx -t failed for ${configFile}:\n${stderr.trim()}`));
    });
  });
}

/** Resolves when `GET /stub_status` on the status port answers 200, or rejects at the deadline. */
async function waitForStatus(
  statusPort: number,
  exited: () => string | undefined,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const req = http.get(
        { host: '127.0.0.1', port: statusPort, path: '/stub_status', agent: false, timeout: 500 },
        (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        },
      );
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
    });
    if (ok) return;
    const exit = exited();
    if (exit !== undefined) throw new Error(exit);
    if (Date.now() > deadline)
      throw new Error(`nginx did not answer on 127.0.0.1:${statusPort} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Worker pids of an nginx master (Linux /proc), to see a reload take effect. */
async function workerPids(masterPid: number): Promise<Set<string> | undefined> {
  try {
    const children = await fs.readFile(`/proc/${masterPid}/task/${masterPid}/children`, 'utf8');
    return new Set(children.split(/\s+/).filter(Boolean));
  } catch {
    return undefined;
  }
}

/**
 * Renders the shipped config into `prefixDir`, validates it with `nginx -t`, starts nginx in
 * the foreground and resolves once it answers. Rejects clearly when the binary is missing or
 * the config is refused.
 */
export async function startLocalNginx(options: LocalNginxOptions): Promise<LocalNginx> {
  const binary = options.binary ?? defaultBinary();
  const prefixDir = path.resolve(options.prefixDir);
  await fs.mkdir(path.join(prefixDir, 'logs'), { recursive: true });
  await fs.mkdir(path.join(prefixDir, 'tmp'), { recursive: true });
  // Workers run unprivileged when nginx starts as root: they must be able to reach the prefix.
  await fs.chmod(prefixDir, 0o755);
  const template = await fs.readFile(options.templatePath ?? NGINX_TEMPLATE_PATH, 'utf8');
  const port = options.port || (await freePort());
  const statusPort = await freePort();
  const configFile = path.join(prefixDir, 'nginx.conf');
  const accessLogFile = path.join(prefixDir, 'logs', 'access.log');
  const render = (upstreams: readonly string[]) =>
    renderNginxConfig(template, {
      upstreams,
      port,
      statusPort,
      prefixDir,
      workerProcesses: options.workerProcesses,
      upstreamKeepaliveTimeoutS: options.upstreamKeepaliveTimeoutS,
      floodLimits: options.floodLimits,
    });

  await fs.writeFile(configFile, render(options.upstreams));
  await checkNginxConfig(configFile, { binary, prefixDir });

  const child = spawn(
    binary,
    ['-p', `${prefixDir}/`, '-e', 'stderr', '-c', configFile, '-g', 'daemon off;'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  readline.createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr = `${stderr}${line}\n`.slice(-65_536);
    options.onLog?.(line);
  });
  let exitReason: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      exitReason =
        err.code === 'ENOENT'
          ? `nginx binary "${binary}" not found; ${INSTALL_HINT}`
          : `cannot start nginx: ${err.message}`;
      resolve();
    });
    child.once('exit', (code, signal) => {
      exitReason ??= `nginx exited (${code ?? signal}):\n${stderr.trim()}`;
      resolve();
    });
  });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  };

  try {
    await waitForStatus(statusPort, () => exitReason);
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    port,
    statusPort,
    url: `http://127.0.0.1:${port}`,
    configFile,
    accessLogFile,
    process: child,
    errors: () => stderr,
    async reload(upstreams) {
      const next = path.join(prefixDir, 'nginx.next.conf');
      await fs.writeFile(next, render(upstreams));
      await checkNginxConfig(next, { binary, prefixDir });
      await fs.rename(next, configFile);
      const before = await workerPids(child.pid!);
      child.kill('SIGHUP');
      if (before === undefined) {
        // No /proc to watch: give the master a moment to start the new workers.
        await new Promise((r) => setTimeout(r, 500));
        return;
      }
      // New worker pids mean the new config is loaded; once the old workers have left (they
      // finish in-flight requests first) only the new config accepts connections.
      const deadline = Date.now() + 5000;
      let started = false;
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        const now = (await workerPids(child.pid!)) ?? new Set<string>();
        started ||= [...now].some((pid) => !before.has(pid));
        if (started && ![...before].some((pid) => now.has(pid))) return;
      }
      if (!started) throw new Error(`nginx did not reload within 5 s:\n${stderr.trim()}`);
    },
    stop,
  };
}
