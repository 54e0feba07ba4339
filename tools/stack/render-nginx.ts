/**
 * Renders the shipped `nginx/nginx.conf` for a local run (`npm run stack`, e2e tests): the same
 * file with only its `# @local:<name>` lines rewritten (listen ports, upstream addresses, pid,
 * log and temporary paths under a prefix directory, worker count). Every marker must be
 * present and known, so the production file and the local one cannot drift apart silently.
 */
import path from 'node:path';

/** The shipped production config, relative to this module (tools/stack). */
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
  /** The per-address flood limits; default: the shipped ones (tests provoke them lower). */
  readonly floodLimits?: Partial<FloodLimits>;
}

/** The edge's per-address limits, each as the number its 429 reports in X-RateLimit-Limit. */
export interface FloodLimits {
  /** Requests at once with credentials (and preflights): `burst` + 1 of `radar_per_ip`. */
  readonly client: number;
  /** Requests at once without well-formed credentials: `burst` + 1 of `radar_anonymous`. */
  readonly anonymous: number;
  /** Requests in progress at once (`limit_conn`). */
  readonly connections: number;
}

const MARKER = /^(\s*)(.*?)\s*# @local:([a-z-]+)\s*$/;

type LineRenderer = (indent: string, directive: string, options: NginxRenderOptions) => string[];

function replaceAddress(directive: string, from: RegExp, to: string): string {
  if (!from.test(directive))
    throw new Error(`nginx template: cannot find the address in "${directive}"`);
  return directive.replace(from, to);
}

/** Rewrites the one number `pattern` captures (group 2) to `value`, when a value is given. */
function replaceNumber(directive: string, pattern: RegExp, value: number | undefined): string {
  if (!pattern.test(directive))
    throw new Error(`nginx template: cannot find the number in "${directive}"`);
  if (value === undefined) return directive;
  if (!Number.isInteger(value) || value < 1) throw new Error(`nginx: bad flood limit ${value}`);
  return directive.replace(pattern, `$1${value}$3`);
}

const BURST = /^(limit_req\s.*\bburst=)(\d+)(.*)$/;
const MAP_VALUE = /^(\S+\s+)(\d+)(;)$/;
const CONNECTIONS = /^(limit_conn\s+\S+\s+)(\d+)(;)$/;
const HEADER_VALUE = /^(add_header\s+X-RateLimit-Limit\s+)(\d+)(\s+always;)$/;
const burstOf = (limit: number | undefined) => (limit === undefined ? undefined : limit - 1);

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
  'flood-client': (indent, d, o) => [
    indent + replaceNumber(d, BURST, burstOf(o.floodLimits?.client)),
  ],
  'flood-client-limit': (indent, d, o) => [
    indent + replaceNumber(d, MAP_VALUE, o.floodLimits?.client),
  ],
  'flood-anonymous': (indent, d, o) => [
    indent + replaceNumber(d, BURST, burstOf(o.floodLimits?.anonymous)),
  ],
  'flood-anonymous-limit': (indent, d, o) => [
    indent + replaceNumber(d, MAP_VALUE, o.floodLimits?.anonymous),
  ],
  'flood-connections': (indent, d, o) => [
    indent + replaceNumber(d, CONNECTIONS, o.floodLimits?.connections),
  ],
  'flood-connections-limit': (indent, d, o) => [
    indent + replaceNumber(d, HEADER_VALUE, o.floodLimits?.connections),
  ],
  'status-listen': (indent, directive, o) => [
    `${indent}${replaceAddress(directive, /^listen\s+\S+?(?=;|\s)/, `listen 127.0.0.1:${o.statusPort}`)}`,
  ],
};

/** Names of the `# @local:` markers the shipped config must carry, each exactly once. */
export const NGINX_MARKERS: readonly string[] = Object.keys(RENDERERS);

/** The number each flood marker's rendered line carries, as X-RateLimit-Limit counts it. */
function floodNumber(name: string, line: string): number | undefined {
  const pattern = { 'flood-client': BURST, 'flood-anonymous': BURST }[name];
  const text = line.trim();
  if (pattern) return Number(pattern.exec(text)?.[2]) + 1;
  if (name === 'flood-connections') return Number(CONNECTIONS.exec(text)?.[2]);
  if (name.startsWith('flood-'))
    return Number((MAP_VALUE.exec(text) ?? HEADER_VALUE.exec(text))?.[2]);
  return undefined;
}

/** Each flood limit and the X-RateLimit-Limit its 429 reports must be the same number. */
function checkFloodLimits(numbers: ReadonlyMap<string, number>): void {
  for (const kind of ['client', 'anonymous', 'connections']) {
    const enforced = numbers.get(`flood-${kind}`);
    const reported = numbers.get(`flood-${kind}-limit`);
    if (enforced !== reported)
      throw new Error(
        `nginx template: the ${kind} flood limit enforces ${enforced} but its 429 reports ${reported}`,
      );
  }
}

/**
 * Returns `template` with every marked line rewritten for a local run. Throws when a marker
 * is unknown, missing or repeated, when a marked line does not have the expected shape, or
 * when a flood limit and the X-RateLimit-Limit its 429 reports disagree.
 */
export function renderNginxConfig(template: string, options: NginxRenderOptions): string {
  if (!path.isAbsolute(options.prefixDir)) throw new Error('nginx: prefixDir must be absolute');
  const seen = new Map<string, number>();
  const floodNumbers = new Map<string, number>();
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
    const lines = render(indent, directive, options);
    const flood = floodNumber(name, lines[0] ?? '');
    if (flood !== undefined) floodNumbers.set(name, flood);
    out.push(...lines);
  }
  for (const name of NGINX_MARKERS) {
    const count = seen.get(name) ?? 0;
    if (count !== 1)
      throw new Error(`nginx template: marker @local:${name} found ${count} times, expected once`);
  }
  checkFloodLimits(floodNumbers);
  return out.join('\n');
}
