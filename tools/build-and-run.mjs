#!/usr/bin/env node
/**
 * `node tools/build-and-run.mjs <entry> [args...]`: builds dist/ if a source changed since the
 * last build (as `node tools/build.mjs --if-stale`), then runs the entry point in this same
 * process with `args` as its command line. A `.ts` entry (the local stack) runs through tsx.
 *
 * The npm scripts of long-lived processes (`npm start`, `npm run simulate`, `ingest`, `stack`)
 * run `exec node tools/build-and-run.mjs <entry>`: npm runs a script through `sh -c` and
 * forwards SIGTERM and SIGINT to that shell only, and a shell that does not exec its command
 * (dash) dies of the signal and leaves the service running without its parent. With `exec` and
 * the build in this same process, npm's child is the service itself (no shell, no second
 * command, no tsx process in between), so the signal reaches the code that drains it.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { buildIfStale } from './build.mjs';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: node tools/build-and-run.mjs <entry.js|entry.ts> [args...]\n');
  process.exit(2);
}
try {
  buildIfStale();
} catch {
  process.exit(1); // tsc and esbuild have printed why
}

const file = path.resolve(entry);
const require = createRequire(import.meta.url);
if (file.endsWith('.ts')) require('tsx/cjs/api').register();
// The entry reads its own arguments from process.argv, as if started as `node <entry> ...args`.
process.argv = [process.argv[0], file, ...args];
require(file);
