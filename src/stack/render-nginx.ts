/**
 * Renders the shipped `nginx/nginx.conf` for a local run (`npm run stack`, e2e tests): the same
 * file with only its `# @local:<name>` lines rewritten (listen ports, upstream addresses, pid,
 * log and temporary paths under a prefix directory, worker count). Every marker must be
 * present and known, so the production file and the local one cannot drift apart silently.
 */
import path from 'node:path';

/** The shipped production config, relative to this module (src/stack or dist/stack). */
export const NGINX_TEMPLATE_PATH = path.resolve(__dirname, '../../nginx/nginx.conf');

export interface NginxRenderOptions {
  /** Replica public addresses, `host:port`; one `server` line each. */
  readonly upstreams: readonly string[];
  /** Loopback port of the public API listener. */
  readonly port: number;
  /** Loopback port of the stub_status listener. */
  readonly statusPort: number;
  /** Directory for pid, access log and temporary files (absolute). */
  readonly prefixDir: string;
  /** `worker_processes`; default 1 (enough locally, and keeps connection reuse predictable). */
  readonly workerProcesses?: number | 'auto';
  /** Upstream idle keep-alive timeout in seconds; default: the shipped value (60 s). */
  readonly upstreamKeepaliveTimeoutS?: number;
  /** Listen address; default `127.0.0.1`. */
  readonly host?: string;
}

const MARKER = /^(\s*)(.*?)\s*# @local:([a-z-]+)\s*$/;

type LineRenderer = (indent: string, directive: string, options: NginxRenderOptions) => string[];

function replaceAddress(directive: string, from: RegExp, to: string): string {
  if (!from.test(directive))
    throw new Error(`nginx template: cannot find the address in "${directive}"`);
  return directive.replace(from, to);
}

const RENDERERS: Readonly<Record<string, LineRenderer>> = {
  workers: (indent, _d, o) => [`${indent}worker_processes ${o.workerProcesses ?? 1};`],
  pid: (indent, _d, o) => [`${indent}pid ${path.join(o.prefixDir, 'nginx.pid')};`],
  'temp-paths': (indent, _d, o) =>
    ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
      (kind) => `${indent}${kind}_temp_path ${path.join(o.prefixDir, 'tmp', kind)};`,
    ),
  'access-log': (indent, directive, o) => [
    `${indent}${replaceAddress(directive, /^access_log\s+\S+/, `access_log ${path.join(o.prefixDir, 'logs', 'access.log')}`)}`,
  ],
  upstream: (indent, directive, o) => {
    if (o.upstreams.length === 0) throw new Error('nginx: at least one upstream is needed');
    return o.upstreams.map(
      (address) => `${indent}${replaceAddress(directive, /^server\s+\S+/, `server ${address}`)}`,
    );
  },
  'upstream-keepalive-timeout': (indent, directive, o) => [
    o.upstreamKeepaliveTimeoutS === undefined
      ? `${indent}${directive}`
      : `${indent}keepalive_timeout ${o.upstreamKeepaliveTimeoutS}s;`,
  ],
  listen: (indent, directive, o) => [
    `${indent}${replaceAddress(directive, /^listen\s+\S+?(?=;|\s)/, `listen ${o.host ?? '127.0.0.1'}:${o.port}`)}`,
  ],
  'status-listen': (indent, directive, o) => [
    `${indent}${replaceAddress(directive, /^listen\s+\S+?(?=;|\s)/, `listen 127.0.0.1:${o.statusPort}`)}`,
  ],
};

/** Names of the `# @local:` markers the shipped config must carry, each exactly once. */
export const NGINX_MARKERS: readonly string[] = Object.keys(RENDERERS);

/**
 * Returns `template` with every marked line rewritten for a local run. Throws when a marker
 * is unknown, missing or repeated, or when a marked line does not have the expected shape.
 */
export function renderNginxConfig(template: string, options: NginxRenderOptions): string {
  if (!path.isAbsolute(options.prefixDir)) throw new Error('nginx: prefixDir must be absolute');
  const seen = new Map<string, number>();
  const out: string[] = [];
  for (const line of template.split('\n')) {
    const match = MARKER.exec(line);
    if (!match) {
      out.push(line);
      continue;
    }
    const [, indent = '', directive = '', name = ''] = match;
    const render = RENDERERS[name];
    if (!render) throw new Error(`nginx template: unknown marker @local:${name}`);
    seen.set(name, (seen.get(name) ?? 0) + 1);
    out.push(...render(indent, directive, options));
  }
  for (const name of NGINX_MARKERS) {
    const count = seen.get(name) ?? 0;
    if (count !== 1)
      throw new Error(`nginx template: marker @local:${name} found ${count} times, expected once`);
  }
  return out.join('\n');
}
