/**
 * What the package ships: `main`, `types` and every `exports` target exist in the built
 * dist/; dist/ holds production code only (no dev tooling, nothing that requires a dev
 * dependency); every production dependency is used by production code (test-only packages
 * are devDependencies). `npm test` builds before jest runs, so dist/ is current here.
 */
import { builtinModules } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { readText, repoPath } from './deploy-files';

interface PackageJson {
  main: string;
  types: string;
  exports: Record<string, string | Record<string, string>>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

const pkg = JSON.parse(readText('package.json')) as PackageJson;

function files(dir: string, suffix: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(suffix))
    .map((f) => path.join(dir, f));
}

function packageName(spec: string): string {
  return spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
}

beforeAll(() => {
  if (!fs.existsSync(repoPath('dist', 'bin', 'api.js')))
    throw new Error('dist/ is not built: run `npm run build` first (npm test does)');
});

it('main, types and every exports target exist in dist/', () => {
  const targets = [pkg.main, pkg.types];
  for (const entry of Object.values(pkg.exports)) {
    if (typeof entry === 'string') targets.push(entry);
    else targets.push(...Object.values(entry));
  }
  for (const target of targets)
    expect([target, fs.existsSync(repoPath(target))]).toEqual([target, true]);
});

it('dist/ holds no dev tooling', () => {
  const js = files(repoPath('dist'), '.js').map((f) => path.relative(repoPath('dist'), f));
  expect(js.length).toBeGreaterThan(50);
  const tooling = js.filter(
    (f) => /^(stack|tools)\//.test(f) || /build-viewer|bin\/stack\.js$/.test(f),
  );
  expect(tooling).toEqual([]);
});

it('nothing in dist/ requires a dev dependency', () => {
  const production = new Set(Object.keys(pkg.dependencies));
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  const offending: string[] = [];
  for (const file of files(repoPath('dist'), '.js')) {
    if (file.includes(`${path.sep}viewer${path.sep}public${path.sep}`)) continue; // the bundled page
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/require\("([^"]+)"\)/g)) {
      const spec = m[1]!;
      if (spec.startsWith('.') || builtins.has(spec) || production.has(packageName(spec))) continue;
      offending.push(`${path.relative(repoPath(), file)}: ${spec}`);
    }
  }
  expect(offending).toEqual([]);
});

it('every production dependency is imported by production code', () => {
  const imported = new Set<string>();
  for (const file of files(repoPath('src'), '.ts')) {
    const source = fs.readFileSync(file, 'utf8');
    for (const m of source.matchAll(
      /^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+'([^'.][^']*)'/gm,
    ))
      imported.add(packageName(m[1]!));
    // A package loaded on demand (OpenCV's WebAssembly build, only when a nowcast runs).
    for (const m of source.matchAll(/\brequire\('([^'.][^']*)'\)/g))
      imported.add(packageName(m[1]!));
  }
  const unused = Object.keys(pkg.dependencies).filter((d) => !imported.has(d));
  expect(unused).toEqual([]);
});
