/**
 * deploy/Dockerfile and .dockerignore, checked statically (no Docker engine here): a
 * multi-stage build, production dependencies only in the runtime stage, non-root, tini as
 * PID 1, a healthcheck on the admin port, the ports the project defines, and a runtime
 * import graph that needs no dev dependency.
 */
import { builtinModules } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { readText, repoPath, ROOT } from './deploy-files';

interface Stage {
  from: string;
  name?: string;
  lines: string[];
}

/** Instructions (continuation lines joined, comments dropped), grouped by stage. */
function stages(text: string): Stage[] {
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const out: Stage[] = [];
  for (const line of instructions) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) out.push({ from: from[1]!, name: from[2], lines: [] });
    else out[out.length - 1]?.lines.push(line);
  }
  return out;
}

const dockerfile = readText('deploy/Dockerfile');
const all = stages(dockerfile);
const [build, runtime] = [all[0]!, all[all.length - 1]!];
const runtimeText = runtime.lines.join('\n');
const nodeImage = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];

it('is a multi-stage build on a slim Node LTS image', () => {
  expect(all.length).toBeGreaterThanOrEqual(2);
  expect(build.name).toBe('build');
  expect(nodeImage).toMatch(/^node:(22|24)-[a-z]+-slim$/);
  for (const stage of all) expect(stage.from).toBe('${NODE_IMAGE}');
});

it('builds with dev dependencies in the build stage', () => {
  expect(build.lines).toContain('RUN npm ci --no-audit --no-fund');
  expect(build.lines).toContain('RUN npm run build');
  const buildScript = (JSON.parse(readText('package.json')) as { scripts: Record<string, string> })
    .scripts.build;
  expect(buildScript).toBe('node tools/build.mjs');
  expect(readText('tools/build.mjs')).toContain("'tsconfig.build.json'");
});

it('installs production dependencies only in the runtime stage and copies dist from the build', () => {
  expect(runtimeText).toMatch(/^RUN npm ci --omit=dev\b/m);
  expect(runtimeText).not.toMatch(/npm (ci|install)(?![^\n]*--omit=dev)/);
  expect(runtime.lines).toContain('COPY --from=build /opt/radar/dist ./dist');
  expect(runtimeText).not.toMatch(/^COPY (src|web|test)\b/m);
});

it('runs as a non-root user under tini, with a healthcheck on the admin port', () => {
  const user = runtime.lines.filter((l) => /^USER\s/.test(l)).pop();
  expect(user).toBeDefined();
  expect(user).not.toMatch(/^USER\s+(root|0)(:|$)/);
  expect(runtimeText).toMatch(/apt-get install -y --no-install-recommends tini/);
  expect(runtimeText).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
  const healthcheck = runtime.lines.find((l) => l.startsWith('HEALTHCHECK'))!;
  expect(healthcheck).toMatch(/CMD \["node", "-e", /);
  expect(healthcheck).toContain("path:'/healthz'");
  expect(healthcheck).toContain('process.env.ADMIN_PORT||9464');
  expect(runtime.lines).toContain('EXPOSE 8080 9464');
  expect(runtime.lines).toContain('CMD ["node", "/opt/radar/dist/bin/api.js"]');
});

it('copies only files that exist and that .dockerignore lets into the context', () => {
  const ignored = readText('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const entry of [
    'node_modules',
    'dist',
    '.git',
    'keys.json',
    'demo-credentials.json',
    'data',
    '.stack',
  ]) {
    expect(ignored).toContain(entry);
  }
  const sources = build.lines
    .filter((l) => l.startsWith('COPY ') && !l.includes('--from'))
    .flatMap((l) => l.split(/\s+/).slice(1, -1));
  expect(sources).toEqual(
    expect.arrayContaining(['package.json', 'package-lock.json', 'src', 'web', 'tools']),
  );
  for (const source of sources) {
    expect([source, fs.existsSync(repoPath(source))]).toEqual([source, true]);
    expect(ignored).not.toContain(source);
  }
});

it('the runtime entry points import no dev dependency (the image has production dependencies only)', () => {
  const pkg = JSON.parse(readText('package.json')) as { dependencies: Record<string, string> };
  const production = new Set(Object.keys(pkg.dependencies));
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  // The processes the image runs, the render worker thread started by file name, and the job
  // modules that worker loads by path.
  const entries = [
    'bin/api.ts',
    'bin/ingest.ts',
    'bin/simulate.ts',
    'bin/keys.ts',
    'bin/mrms.ts',
    'render/render-worker.ts',
    'sim/simulator-frame.ts',
    'sources/mrms/mrms-frame.ts',
    'render/grid-render-pool.ts',
  ].map((f) => path.join(ROOT, 'src', f));
  const seen = new Set<string>();
  const offending: string[] = [];
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = fs.readFileSync(file, 'utf8');
    // Static imports and re-exports, `import type` excluded (erased at compile time).
    const specifiers = [
      ...[...source.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+'([^']+)'/gm)].map(
        (m) => m[1]!,
      ),
      ...[...source.matchAll(/^\s*import\s+'([^']+)'/gm)].map((m) => m[1]!),
    ];
    for (const spec of specifiers) {
      if (spec.startsWith('.')) {
        const resolved = path.resolve(path.dirname(file), spec);
        const candidate = [`${resolved}.ts`, path.join(resolved, 'index.ts')].find((c) =>
          fs.existsSync(c),
        );
        if (candidate) queue.push(candidate);
        continue;
      }
      const pkgName = spec.startsWith('@')
        ? spec.split('/').slice(0, 2).join('/')
        : spec.split('/')[0]!;
      if (!builtins.has(spec) && !builtins.has(pkgName) && !production.has(pkgName)) {
        offending.push(`${path.relative(ROOT, file)}: ${spec}`);
      }
    }
  }
  expect(seen.size).toBeGreaterThan(20);
  expect(offending).toEqual([]);
});
