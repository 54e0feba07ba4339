/**
 * Builds the API description and its HTML reference into one directory the service serves
 * (`dist/openapi/public` by default):
 *
 * - `openapi.json`: `openapi/openapi.yaml`, the source, converted to JSON (served at
 *   `/openapi.json`);
 * - `reference.html`: Redoc, rendered by `redocly build-docs` with its scripts and the
 *   description inlined (served at `/reference/`). Redoc's sidebar credits Redocly with a logo
 *   loaded from Redocly's CDN; the build points it at a local SVG instead, so the page makes
 *   no request to another origin (the build fails if the logo address is not found, so a new
 *   Redoc that loads it otherwise cannot slip through unnoticed).
 *
 * Run as `npx tsx tools/build-openapi.ts [outDir]`, or call {@link buildOpenApi};
 * `npm run build` runs it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { defaultOpenApiAssetsDir, OPENAPI_FILE } from '../src/openapi/openapi-document';
import { REFERENCE_FILE } from '../src/openapi/reference-routes';

/** Root of this checkout. */
const ROOT = path.resolve(__dirname, '..');
/** The description's source, the one file to edit. */
export const OPENAPI_SOURCE = path.join(ROOT, 'openapi', 'openapi.yaml');

/** The Redocly logos Redoc's sidebar loads from Redocly's CDN. */
const REMOTE_LOGOS = [
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg',
  'https://cdn.redoc.ly/redoc/logo-mini.svg',
] as const;
/** What the page shows instead: the credit as text, drawn locally. */
const LOCAL_LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16"><text x="0" y="12" font-family="sans-serif" font-size="12">Redocly</text></svg>',
)}`;

/**
 * The page's icon, inline: without one the browser asks the origin for `/favicon.ico`, which
 * is no route (a 404 in the console). A radar scope: rings and a sweep.
 */
const ICON_LINK = `<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7.5" fill="#10161e"/><circle cx="8" cy="8" r="6" fill="none" stroke="#3fa34d"/><circle cx="8" cy="8" r="3" fill="none" stroke="#3fa34d"/><path d="M8 8L13 3" stroke="#e6d23a" stroke-width="1.5"/></svg>',
)}" />`;

/** The description as a JavaScript object, read from its YAML source. */
export async function readOpenApiSource(file: string = OPENAPI_SOURCE): Promise<unknown> {
  return parse(await fs.readFile(file, 'utf8'), { strict: true, uniqueKeys: true }) as unknown;
}

/** Runs the Redocly CLI of this checkout, output kept unless it fails. */
function redocly(args: readonly string[]): void {
  const cli = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
  try {
    execFileSync(process.execPath, [cli, ...args], {
      cwd: ROOT,
      stdio: 'pipe',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
  } catch (err) {
    const failed = err as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(
      `redocly ${args[0]} failed:\n${String(failed.stdout ?? '')}${String(failed.stderr ?? '')}`,
    );
  }
}

/** Renders the reference page of `jsonFile` into `outFile` (no request to another origin). */
async function buildReference(jsonFile: string, outFile: string): Promise<void> {
  const temp = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-reference-'));
  try {
    const rendered = path.join(temp, 'reference.html');
    redocly(['build-docs', jsonFile, '--inlineBundle', '--output', rendered]);
    let html = await fs.readFile(rendered, 'utf8');
    for (const logo of REMOTE_LOGOS) {
      if (!html.includes(logo))
        throw new Error(`Redoc no longer loads ${logo}: check the page for remote requests`);
      html = html.split(logo).join(LOCAL_LOGO);
    }
    // The document's own head comes first (the inlined bundle holds more `<head>` text).
    const head = html.indexOf('</head>');
    if (head < 0 || head > html.indexOf('<body'))
      throw new Error('Redoc page without a </head> before its <body>: cannot add its icon');
    html = `${html.slice(0, head)}${ICON_LINK}${html.slice(head)}`;
    await fs.writeFile(outFile, html);
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
}

/** Options of {@link buildOpenApi}. */
export interface BuildOpenApiOptions {
  /** Output directory (default `dist/openapi/public`); created, and emptied first. */
  readonly outDir?: string;
}

/** Writes `openapi.json` and `reference.html` into `outDir`; returns the directory. */
export async function buildOpenApi(options: BuildOpenApiOptions = {}): Promise<string> {
  const outDir = options.outDir ?? defaultOpenApiAssetsDir();
  await fs.rm(outDir, { recursive: true, force: true });
  await fs.mkdir(outDir, { recursive: true });
  const jsonFile = path.join(outDir, OPENAPI_FILE);
  await fs.writeFile(jsonFile, `${JSON.stringify(await readOpenApiSource(), null, 2)}\n`);
  await buildReference(jsonFile, path.join(outDir, REFERENCE_FILE));
  return outDir;
}

if (require.main === module) {
  const started = Date.now();
  buildOpenApi({ outDir: process.argv[2] })
    .then((dir) =>
      process.stdout.write(`API description built in ${Date.now() - started} ms: ${dir}\n`),
    )
    .catch((err: unknown) => {
      process.stderr.write(`API description build failed: ${(err as Error).message}\n`);
      process.exit(1);
    });
}
