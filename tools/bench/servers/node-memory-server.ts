/**
 * Baseline "the Node limit": a bare `node:http` server answering the same bytes as the
 * service from memory, with no framework, auth, rate limit or logging. `/status.json` sends
 * the status document captured from a replica (`304` on a matching `If-None-Match`);
 * `/tiles/<name>` sends an archive file held in memory, honouring one `Range`.
 * Args: <root directory> holding `status.json`, `status.etag` and `tiles/*.pmtiles`.
 * Prints `{"port":N}` once listening.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import parseRange from 'range-parser';

const root = process.argv[2];
if (!root) throw new Error('usage: node-memory-server.ts <root>');
const statusBody = fs.readFileSync(path.join(root, 'status.json'));
const statusEtag = fs.readFileSync(path.join(root, 'status.etag'), 'utf8').trim();
const archives = new Map<string, Buffer>();
for (const name of fs.readdirSync(path.join(root, 'tiles'))) {
  archives.set(`/tiles/${name}`, fs.readFileSync(path.join(root, 'tiles', name)));
}

/** `/tiles/{ts}/{z}/{x}/{y}.png` files (the tile scenario writes them later), held once read. */
const tiles = new Map<string, Buffer>();
function tileFile(url: string): Buffer | undefined {
  if (!/^\/tiles\/[0-9]{12}\/[0-9]+\/[0-9]+\/[0-9]+\.png$/.test(url)) return undefined;
  let bytes = tiles.get(url);
  if (!bytes) {
    bytes = fs.readFileSync(path.join(root!, url));
    tiles.set(url, bytes);
  }
  return bytes;
}

const server = http.createServer((req, res) => {
  if (req.url === '/status.json') {
    if (req.headers['if-none-match'] === statusEtag) {
      res.writeHead(304, { ETag: statusEtag });
      res.end();
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': statusBody.length,
      ETag: statusEtag,
    });
    res.end(statusBody);
    return;
  }
  const tile = tileFile(req.url ?? '');
  if (tile) {
    res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': tile.length });
    res.end(tile);
    return;
  }
  const archive = archives.get(req.url ?? '');
  if (!archive) {
    res.writeHead(404, { 'Content-Length': 0 });
    res.end();
    return;
  }
  const ranges = req.headers.range ? parseRange(archive.length, req.headers.range) : undefined;
  if (Array.isArray(ranges) && ranges.length === 1) {
    const { start, end } = ranges[0]!;
    res.writeHead(206, {
      'Content-Type': 'application/vnd.pmtiles',
      'Content-Length': end - start + 1,
      'Content-Range': `bytes ${start}-${end}/${archive.length}`,
    });
    res.end(archive.subarray(start, end + 1));
    return;
  }
  res.writeHead(200, {
    'Content-Type': 'application/vnd.pmtiles',
    'Content-Length': archive.length,
  });
  res.end(archive);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(
    `${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`,
  );
});
process.once('SIGTERM', () => process.exit(0));
