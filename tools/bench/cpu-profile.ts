/**
 * Reads a `node --cpu-prof` profile of a replica and breaks its CPU time down per request by
 * the part of the pipeline that spent it. Each sample is charged to the nearest frame on its
 * stack that belongs to a known part (a middleware or route file, the limiter, Koa, the
 * router, ioredis, metrics, logging), so the time a middleware spends inside Node or a library
 * on its behalf counts as that middleware's; what no part claims (the HTTP parser, socket
 * writes, timers) is "node: http and I/O".
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly hitCount?: number;
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** One line of a breakdown: a part of the pipeline and its CPU µs per request. */
export interface ProfilePart {
  readonly part: string;
  readonly usPerRequest: number;
  readonly share: number;
}

export interface ProfileBreakdown {
  readonly load: string;
  readonly requests: number;
  /** Busy CPU µs per request (idle excluded). */
  readonly totalUsPerRequest: number;
  readonly parts: ProfilePart[];
}

/**
 * Node's own response writing (headers, socket writes): a bare node:http server pays the same,
 * so it is charged to "node: http and I/O" even when Koa's `respond` called it.
 */
const NODE_IO =
  /^node:(_http_outgoing|_http_server|_http_common|net|internal\/stream_base_commons|internal\/streams\/writable)$/;

/** Ordered: the first rule a frame matches names its part. Libraries first: some ship a dist/. */
const LIBRARY_RULES: ReadonlyArray<[RegExp, (m: RegExpExecArray) => string]> = [
  [/node_modules\/rate-limiter-flexible\//, () => 'rate-limiter-flexible'],
  [/node_modules\/ioredis\//, () => 'ioredis'],
  [/node_modules\/prom-client\//, () => 'prom-client (metrics)'],
  [/node_modules\/pino/, () => 'pino (logging)'],
  [/node_modules\/@koa\/router\//, () => '@koa/router'],
  [/node_modules\/@koa\/cors\//, () => '@koa/cors'],
  [/node_modules\/(koa[\w-]*)\//, (m) => m[1]!],
  [/node_modules\/([@\w.-]+)\//, (m) => `lib ${m[1]}`],
];

const RULES: ReadonlyArray<[RegExp, (m: RegExpExecArray) => string]> = [
  ...LIBRARY_RULES,
  [NODE_IO, () => 'node: http and I/O'],
  [/\/dist[\w-]*\/http\/middleware\/([\w-]+)\.js/, (m) => `middleware ${m[1]}`],
  [/\/dist[\w-]*\/http\/routes\/([\w-]+)\.js/, (m) => `route ${m[1]}`],
  [/\/dist[\w-]*\/http\/([\w-]+)\.js/, (m) => `http ${m[1]}`],
  [
    /\/dist\/adapters\/redis\/(rate-limiter|quota-lease|lease-sizing)\.js/,
    () => 'rate limiter (lease)',
  ],
  [/\/dist[\w-]*\/adapters\/([\w/-]+)\.js/, (m) => `adapter ${m[1]}`],
  [/\/dist[\w-]*\/domain\/([\w-]+)\.js/, (m) => `domain ${m[1]}`],
  [/\/dist[\w-]*\/(metrics|instrument|logger)\.js/, (m) => `${m[1]}`],
  [/\/dist[\w-]*\/([\w/-]+)\.js/, (m) => `src ${m[1]}`],
];

function partOf(url: string): string | undefined {
  for (const [re, name] of RULES) {
    const m = re.exec(url);
    if (m) return name(m);
  }
  return undefined;
}

/**
 * Breaks a profile down per request. `window` (ms after the profile started) limits it to
 * the measured run, whose `requests` responses the time is divided by.
 */
export function breakDown(
  profile: CpuProfile,
  load: string,
  requests: number,
  window: { fromMs: number; toMs: number },
): ProfileBreakdown {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const cache = new Map<number, string>();
  const attribute = (id: number): string => {
    const known = cache.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    let part: string;
    if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') {
      part = name === '(garbage collector)' ? 'garbage collector' : name;
    } else {
      const own = partOf(node.callFrame.url);
      const up = parent.get(id);
      part = own ?? (up === undefined ? 'node: http and I/O' : attribute(up));
      if (part === '(root)' || part === '(idle)' || part === '(program)')
        part = 'node: http and I/O';
    }
    cache.set(id, part);
    return part;
  };
  const us = new Map<string, number>();
  let at = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < window.fromMs * 1000 || at > window.toMs * 1000) return;
    const part = attribute(id);
    us.set(part, (us.get(part) ?? 0) + delta);
  });
  us.delete('(idle)');
  // "(program)" is native work V8 cannot attribute (mostly the HTTP parser and syscalls).
  const program = us.get('(program)') ?? 0;
  us.delete('(program)');
  us.set('node: http and I/O', (us.get('node: http and I/O') ?? 0) + program);
  const total = [...us.values()].reduce((a, b) => a + b, 0);
  const parts = [...us.entries()]
    .map(([part, t]) => ({
      part,
      usPerRequest: Number((t / Math.max(1, requests)).toFixed(2)),
      share: Number((t / Math.max(1, total)).toFixed(3)),
    }))
    .sort((a, b) => b.usPerRequest - a.usPerRequest);
  return {
    load,
    requests,
    totalUsPerRequest: Number((total / Math.max(1, requests)).toFixed(1)),
    parts,
  };
}

/** The newest `.cpuprofile` in `dir` (the one a replica wrote when it exited). */
export async function readNewestProfile(dir: string): Promise<CpuProfile> {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error(`no .cpuprofile written in ${dir}`);
  const stats = await Promise.all(
    files.map(async (f) => ({ f, t: (await fs.stat(path.join(dir, f))).mtimeMs })),
  );
  const newest = stats.sort((a, b) => b.t - a.t)[0]!.f;
  return JSON.parse(await fs.readFile(path.join(dir, newest), 'utf8')) as CpuProfile;
}
