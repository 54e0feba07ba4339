/**
 * Baseline for whole-archive reads: a bare `node:http` server that streams the object from
 * the same S3 endpoint the replicas read (one plain GET per request over a keep-alive agent,
 * `Range` passed through, no signing, checks, auth or logging). Args: <endpoint> <bucket>.
 * `/tiles/<name>` maps to `<endpoint>/<bucket>/<name>`. Prints `{"port":N}` once listening.
 */
import http from 'node:http';

const [endpoint, bucket] = process.argv.slice(2);
if (!endpoint || !bucket) throw new Error('usage: node-s3-stream-server.ts <endpoint> <bucket>');
const upstream = new URL(endpoint);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const FORWARDED = [
  'content-type',
  'content-length',
  'content-range',
  'etag',
  'last-modified',
  'accept-ranges',
];

const server = http.createServer((req, res) => {
  const match = /^\/tiles\/([0-9]{12}\.pmtiles)$/.exec(req.url ?? '');
  if (!match) {
    res.writeHead(404, { 'Content-Length': 0 });
    res.end();
    return;
  }
  const upstreamReq = http.get(
    {
      host: upstream.hostname,
      port: upstream.port,
      path: `/${bucket}/${match[1]}`,
      agent,
      headers: req.headers.range ? { range: req.headers.range } : {},
    },
    (upstreamRes) => {
      const headers: Record<string, string> = {};
      for (const name of FORWARDED) {
        const value = upstreamRes.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      res.writeHead(upstreamRes.statusCode ?? 502, headers);
      upstreamRes.pipe(res);
    },
  );
  upstreamReq.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'Content-Length': 0 });
    res.end();
  });
  res.on('close', () => {
    if (!res.writableFinished) upstreamReq.destroy();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(
    `${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`,
  );
});
process.once('SIGTERM', () => process.exit(0));
