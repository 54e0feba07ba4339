/**
 * The rooms of src/ and the dependency direction of docs/architecture.md, read from the import
 * lines of src/. Every top-level folder is a stated room (a new one must be stated here and in
 * docs/architecture.md). "The core" is `http/core/` alone: the transport-free decider, which
 * imports nothing else of `http/` and no outer layer. The pure rooms (domain/, shared/, keys/,
 * palette/, quota/, pmtiles/, tiles/) import no technology and no outer layer; the renderer
 * imports no source of grids (so every source shares it) and is grid to archive (the palette is
 * its own room, read by the serving side, the client library and the GRIB2 decoder); each
 * adapter folder is one technology and imports no other (but the in-process `memory/` one,
 * which the Redis limiter keeps as its insurance); adapters never import ingest/, http/ or
 * wiring/; ingest/ never imports an adapter; entry points reach adapters only through wiring/;
 * and no module imports itself through a chain (type-only imports included, as
 * `madge --circular` counts them).
 */
import fs from 'node:fs';
import path from 'node:path';
import { repoPath } from './deploy/deploy-files';

const SRC = repoPath('src');

/** The package and builtin names a file imports (`import type` included). */
function packagesOf(file: string): string[] {
  const text = fs.readFileSync(path.join(SRC, file), 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^'";]*?from\s+'([^.'][^']*)'/gm)].map(
    (m) => m[1]!,
  );
}

/** Whether every import of `name` in `file` is `import type` (erased at compile time). */
function isTypeOnly(file: string, name: string): boolean {
  const text = fs.readFileSync(path.join(SRC, file), 'utf8');
  const lines = text
    .split('\n')
    .filter((l) => l.includes(`'${name}'`) && /^\s*(import|export)\b/.test(l));
  return lines.every((l) => /^\s*import type\b/.test(l));
}

/** Every src-relative module path a file imports (relative specifiers only). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(SRC, file), 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'";]*?from\s+'(\.[^']*)'/gm)) {
    const target = path.normalize(path.join(path.dirname(file), m[1]!));
    const candidates = [`${target}.ts`, path.join(target, 'index.ts')];
    const hit = candidates.find((c) => fs.existsSync(path.join(SRC, c)));
    if (hit) found.push(hit);
  }
  return found;
}

const graph = new Map<string, string[]>(
  fs
    .readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => [f, importsOf(f)]),
);

function violations(from: RegExp, to: RegExp): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph)
    if (from.test(file)) for (const t of targets) if (to.test(t)) found.push(`${file} -> ${t}`);
  return found;
}

it('reads the source tree', () => {
  expect(graph.size).toBeGreaterThan(100);
  expect(graph.get('wiring/replica.ts')?.length).toBeGreaterThan(5);
});

/** The rooms of src/: its top-level folders (the nowcast is a room of grids, as sim/). */
const ROOMS = [
  'adapters', // one folder per technology: fs/, memory/, redis/, s3/
  'bin', // entry points only
  'client', // the map client library
  'domain', // pure: ports, timestamps, archive errors, catalog, keys and the grid
  'embedded', // embedded mode's demo credentials
  'forecast', // publishing nowcasts: the worker that runs cycles, and its publisher
  'http', // the Node transport; core/ the decider
  'ingest', // validate, publish, retain
  'keys', // the registry format and the keys CLI's pure commands
  'nowcast', // a source of grids
  'observability', // metric declarations and instrumentation
  'openapi', // the served API description and its page's routes
  'palette', // colours, schemes, the palette PNG and its rewrite
  'pmtiles', // PMTiles v3 reading, writing and checks
  'probe', // client-view probe targets
  'quota', // the quota-lease book (no technology)
  'render', // grid to archive, and the worker pool
  'serving', // what a replica puts around its ports
  'shared', // technology-neutral building blocks
  'sim', // the simulator, a source of grids
  'sources', // real sources of grids (MRMS: GRIB2, file names, feeds, follower)
  'tiles', // z/x/y lookup, schemes, legend
  'viewer', // the map viewer's routes
  'wiring', // the one composition
];
const ADAPTERS = ['fs', 'memory', 'redis', 's3'];

it('every folder of src/ is a stated room, and adapters/ holds one folder per technology', () => {
  const folders = fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  expect(folders.filter((f) => !ROOMS.includes(f))).toEqual([]);
  const adapters = fs
    .readdirSync(path.join(SRC, 'adapters'), { withFileTypes: true })
    .map((d) => (d.isDirectory() ? d.name : `${d.name} (a file)`));
  expect(adapters.filter((a) => !ADAPTERS.includes(a))).toEqual([]);
});

it('the pure rooms import no technology and no outer layer', () => {
  expect(
    violations(
      /^(domain|shared|keys|palette|quota|pmtiles|tiles)\//,
      /^(adapters|http|ingest|wiring|bin|sim|sources|render|serving|observability)\//,
    ),
  ).toEqual([]);
  // The palette runs in browsers too (the viewer's scheme swap): shared/ and itself only.
  expect(violations(/^palette\//, /^(?!palette\/|shared\/)/)).toEqual([]);
});

it('the core (http/core/) is self-contained: nothing else of http/, no outer layer, no transport', () => {
  expect(violations(/^http\/core\//, /^http\/(?!core\/)/)).toEqual([]);
  expect(
    violations(/^http\/core\//, /^(adapters|ingest|wiring|bin|sim|sources|render|serving)\//),
  ).toEqual([]);
  const transport: string[] = [];
  for (const file of graph.keys())
    if (file.startsWith('http/core/'))
      for (const name of packagesOf(file))
        if (/^(koa|@koa\/|node:(net|tls|http2?)$)/.test(name) && !isTypeOnly(file, name))
          transport.push(`${file} -> ${name}`);
  expect(transport).toEqual([]);
});

it('the one renderer is grid to archive: no source of grids, no outer layer, and the serving side and client need it not', () => {
  expect(violations(/^render\//, /^(sim|sources|adapters|http|ingest|wiring|bin)\//)).toEqual([]);
  // The serving side and the client library never need the renderer.
  expect(violations(/^(http|tiles|client|serving|palette)\//, /^render\//)).toEqual([]);
});

it('adapters: one technology each, never ingest/, http/ or wiring/; ingest/ imports no adapter', () => {
  expect(violations(/^adapters\//, /^(ingest|http|wiring|bin|sources|sim)\//)).toEqual([]);
  const crossing: string[] = [];
  for (const [file, targets] of graph) {
    const own = /^adapters\/([^/]+)\//.exec(file)?.[1];
    if (own === undefined) continue;
    for (const t of targets) {
      const other = /^adapters\/([^/]+)\//.exec(t)?.[1];
      // memory/: the in-process limiter the Redis limiter keeps as its insurance.
      if (other !== undefined && other !== own && other !== 'memory')
        crossing.push(`${file} -> ${t}`);
    }
  }
  expect(crossing).toEqual([]);
  expect(violations(/^ingest\//, /^(adapters|http|wiring|bin)\//)).toEqual([]);
  expect(violations(/^quota\//, /^adapters\//)).toEqual([]);
});

it('entry points reach adapters only through wiring/', () => {
  expect(violations(/^bin\//, /^adapters\//)).toEqual([]);
});

it('no import cycle', () => {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, trail: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(file)), file].join(' > '));
      return;
    }
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  expect(cycles).toEqual([]);
});

it('the nowcast imports no source of grids and no outer layer (grids in, grids out)', () => {
  expect(
    violations(/^nowcast\//, /^(sim|sources|adapters|http|ingest|wiring|bin|render|serving)\//),
  ).toEqual([]);
});

it('publishing forecasts imports no source of grids and no outer layer; grids and the renderer know it not', () => {
  expect(
    violations(/^forecast\//, /^(sim|sources|adapters|http|ingest|wiring|bin|serving)\//),
  ).toEqual([]);
  expect(violations(/^(nowcast|render|domain|shared)\//, /^forecast\//)).toEqual([]);
});
