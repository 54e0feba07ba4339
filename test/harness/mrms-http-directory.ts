/**
 * A local stand-in for NOAA's MRMS HTTP server: one product directory whose index page has the
 * shape of the Apache listing NOAA's server writes (as in test/fixtures/mrms-directory-index.html:
 * sorting links, parent directory, one row per file), built from the files in a local
 * directory at each request, and the files themselves; optionally more product directories
 * beside it on the same host (NOAA's `data/2D/PrecipFlag/` beside the reflectivity). Faults for
 * the follower's retries (the first directory only): the next listings answer 503, or a listed
 * file answers 404.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface MrmsDirectoryServer {
  /** The directory's URL, ending in `/`. */
  readonly url: string;
  /** Answers the next `n` index requests with 503. */
  failListings(n: number): void;
  /** Lists `name` but answers 404 when it is fetched. */
  vanish(name: string): void;
  /** The next listings answer these pages, one each, in order; then the directory again. */
  serveListings(pages: readonly string[]): void;
  /** Requests per path, for assertions. */
  readonly requests: Map<string, number>;
  stop(): Promise<void>;
}

function row(
  icon: string,
  alt: string,
  href: string,
  text: string,
  modified: string,
  size: string,
) {
  return `<tr><td valign="top"><img src="/icons/${icon}.gif" alt="[${alt}]"></td><td><a href="${href}">${text}</a></td><td align="right">${modified}  </td><td align="right">${size}</td><td>&nbsp;</td></tr>`;
}

/** The index page of `urlPath` listing `files` (name, mtime, size), Apache-style. */
export function apacheIndexPage(
  urlPath: string,
  files: ReadonlyArray<{ name: string; mtime: Date; size: number }>,
): string {
  const title = urlPath.replace(/\/$/, '');
  const parent = title.slice(0, title.lastIndexOf('/') + 1);
  const stamp = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
  const size = (n: number) =>
    n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)}M` : `${Math.ceil(n / 1024)}K`;
  return [
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">',
    '<html>',
    ' <head>',
    `  <title>Index of ${title}</title>`,
    ' </head>',
    ' <body>',
    `<h1>Index of ${title}</h1>`,
    '  <table>',
    '   <tr><th valign="top"><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th><th><a href="?C=S;O=A">Size</a></th><th><a href="?C=D;O=A">Description</a></th></tr>',
    '   <tr><th colspan="5"><hr></th></tr>',
    row('back', 'PARENTDIR', parent, 'Parent Directory', '&nbsp;', '  - '),
    ...files.map((f) => row('unknown', '   ', f.name, f.name, stamp(f.mtime), size(f.size))),
    '   <tr><th colspan="5"><hr></th></tr>',
    '</table>',
    '<address>Apache Server at 127.0.0.1</address>',
    '</body></html>',
    '',
  ].join('\n');
}

/** A local directory served as a product directory at `urlPath` (ending in `/`). */
export interface ServedDirectory {
  readonly dir: string;
  readonly urlPath: string;
}

/**
 * Serves `dir` at `urlPath` (e.g. `/data/2D/ReflectivityAtLowestAltitude/`) on loopback, and
 * each of `siblings` at its own path, without faults.
 */
export async function startMrmsDirectoryServer(
  options: ServedDirectory & { readonly siblings?: readonly ServedDirectory[] },
): Promise<MrmsDirectoryServer> {
  const { dir: mainDir, urlPath: mainPath } = options;
  const directories = [{ dir: mainDir, urlPath: mainPath }, ...(options.siblings ?? [])];
  let failing = 0;
  const queuedPages: string[] = [];
  const vanished = new Set<string>();
  const requests = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    requests.set(pathname, (requests.get(pathname) ?? 0) + 1);
    const served = directories.find((d) => pathname.startsWith(d.urlPath)) ?? directories[0]!;
    const { dir, urlPath } = served;
    const main = served === directories[0];
    void (async () => {
      if (pathname === urlPath) {
        if (main && failing > 0) {
          failing--;
          res.writeHead(503, { 'Content-Type': 'text/plain' }).end('busy');
          return;
        }
        const queued = main ? queuedPages.shift() : undefined;
        if (queued !== undefined) {
          res.writeHead(200, { 'Content-Type': 'text/html' }).end(queued);
          return;
        }
        const names = (await fs.readdir(dir)).filter((n) => !n.startsWith('.')).sort();
        const files = await Promise.all(
          names.map(async (name) => {
            const stat = await fs.stat(path.join(dir, name));
            return { name, mtime: stat.mtime, size: stat.size };
          }),
        );
        res.writeHead(200, { 'Content-Type': 'text/html;charset=ISO-8859-1' });
        res.end(apacheIndexPage(urlPath, files));
        return;
      }
      const name = pathname.startsWith(urlPath) ? pathname.slice(urlPath.length) : '';
      if (name === '' || name.includes('/') || (main && vanished.has(name))) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      try {
        const bytes = await fs.readFile(path.join(dir, name));
        res.writeHead(200, {
          'Content-Type': 'application/x-gzip',
          'Content-Length': bytes.length,
        });
        res.end(bytes);
      } catch {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${mainPath}`,
    failListings: (n) => void (failing = n),
    vanish: (name) => void vanished.add(name),
    serveListings: (pages) => void queuedPages.push(...pages),
    requests,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
