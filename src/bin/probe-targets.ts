/**
 * `node dist/bin/probe-targets.js --edge <url> --key-file <file> [--app radar-probe]
 * [--port 9465] [--host 0.0.0.0]`: serves Prometheus HTTP service discovery at `/targets` with
 * the newest archive behind the edge as the blackbox exporter's range-probe target
 * (src/probe/latest-archive-targets.ts, docs/slo.md). `/healthz` answers 200 while it runs.
 * Takes its few settings as arguments: it is an operations companion, not a radar process.
 */
import fs from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { errorBody, NotFoundError } from '../errors';
import { createLatestArchiveTargets } from '../probe/latest-archive-targets';
import { createLogger } from '../logger';
import { jsonText } from '../shared/json-text';
import { exitWhenWritten } from '../shared/flushed-exit';

const USAGE =
  'usage: probe-targets --edge <url> --key-file <file> [--app radar-probe] [--port 9465] [--host 0.0.0.0]';

function main(): void {
  const { values } = parseArgs({
    options: {
      edge: { type: 'string' },
      'key-file': { type: 'string' },
      app: { type: 'string', default: 'radar-probe' },
      port: { type: 'string', default: '9465' },
      host: { type: 'string', default: '0.0.0.0' },
    },
  });
  const port = Number(values.port);
  if (!values.edge || !values['key-file'] || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`${USAGE}\n`);
    exitWhenWritten(2);
    return;
  }
  const logger = createLogger('info');
  // Read once at start: a new key means a restart, as for the blackbox exporter's reload.
  const apiKey = fs.readFileSync(values['key-file'], 'utf8').trim();
  const targets = createLatestArchiveTargets({
    edgeUrl: values.edge,
    apiKey,
    appId: values.app!,
    timeoutMs: 5000,
  });

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || (path !== '/targets' && path !== '/healthz')) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(errorBody(new NotFoundError()));
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok\n');
      return;
    }
    void targets().then(({ groups, error }) => {
      if (error) logger.warn({ error }, 'probe targets: kept the last known archive');
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(jsonText(groups));
    });
  });
  server.listen(port, values.host, () => {
    const address = server.address();
    const bound = typeof address === 'object' && address ? address.port : port;
    logger.info({ port: bound, edge: values.edge }, 'probe targets serving /targets');
  });
  const stop = () => server.close(() => exitWhenWritten(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main();
