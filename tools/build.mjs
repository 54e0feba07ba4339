#!/usr/bin/env node
/**
 * Builds dist/: cleans it (a moved or deleted source must not leave a stale module behind),
 * compiles src/ with tsc, bundles the viewer page with esbuild, and converts the API description
 * (openapi/openapi.yaml) to the JSON and the HTML reference the service serves. With `--if-stale` it builds
 * only when a source is newer than the last build, so `npm start`, `npm run keys` and
 * `npm run stack` start at once when nothing changed. Where there is no src/ (an installed
 * package or the image) there is nothing to build. `tools/build-and-run.mjs` imports
 * {@link buildIfStale} to do the same in the process it then runs the entry point in.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const stamp = path.join(dist, '.build-stamp');
/** What dist/ is made from. */
const inputs = [
  'src',
  'web',
  'tools/build-viewer.ts',
  'openapi',
  'tools/build-openapi.ts',
  'redocly.yaml',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];

function newestMtime(file) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file shows only as its directory's change
  for (const entry of fs.readdirSync(file)) {
    newest = Math.max(newest, newestMtime(path.join(file, entry)));
  }
  return newest;
}

function stale() {
  if (!fs.existsSync(path.join(root, 'src'))) return false;
  const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : -1;
  return inputs.some((input) => newestMtime(path.join(root, input)) > built);
}

/** Cleans dist/ and builds it; throws when tsc or the viewer build fails. */
export function build() {
  const began = new Date();
  fs.rmSync(dist, { recursive: true, force: true });
  const bin = (name) => path.join(root, 'node_modules', '.bin', name);
  const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: 'inherit' });
  run(bin('tsc'), ['-p', 'tsconfig.build.json']);
  run(bin('tsx'), ['tools/build-viewer.ts']);
  run(bin('tsx'), ['tools/build-openapi.ts']);
  // The stamp carries the build's start: an edit made during the build counts as newer.
  fs.writeFileSync(stamp, `${began.toISOString()}\n`);
  fs.utimesSync(stamp, began, began);
}

/** Builds dist/ when a source is newer than the last build; returns whether it built. */
export function buildIfStale() {
  if (!stale()) return false;
  build();
  return true;
}

/** Run as `node tools/build.mjs` (not imported): compared as real paths, symlinks resolved. */
const runAsScript =
  process.argv[1] !== undefined &&
  fs.realpathSync(path.resolve(process.argv[1])) ===
    fs.realpathSync(fileURLToPath(import.meta.url));
if (runAsScript) {
  try {
    if (process.argv.includes('--if-stale')) buildIfStale();
    else build();
  } catch {
    process.exit(1);
  }
}
