/**
 * The dependency direction of docs/architecture.md, read from the import lines of src/: the
 * core (domain/, shared/, keys/) imports no technology and no outer layer, the renderer imports
 * no source of grids (so every source shares it), adapters never import ingest/, http/ or
 * wiring/, ingest/ never imports an adapter, and no module imports itself through a chain
 * (type-only imports included, as `madge --circular` counts them).
 */
import fs from 'node:fs';
import path from 'node:path';
import { repoPath } from './deploy/deploy-files';

const SRC = repoPath('src');

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

it('the core imports no technology and no outer layer', () => {
  expect(
    violations(
      /^(domain|shared|keys)\//,
      /^(adapters|http|ingest|wiring|bin|sim|render|sources)\//,
    ),
  ).toEqual([]);
});

it('the one renderer imports no source of grids and no outer layer', () => {
  expect(violations(/^render\//, /^(sim|sources|adapters|http|ingest|wiring|bin)\//)).toEqual([]);
});

it('adapters import neither ingest/, http/ nor wiring/; ingest/ imports no adapter', () => {
  expect(violations(/^adapters\//, /^(ingest|http|wiring|bin)\//)).toEqual([]);
  expect(violations(/^ingest\//, /^(adapters|http|wiring|bin)\//)).toEqual([]);
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
