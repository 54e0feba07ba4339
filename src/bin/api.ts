/**
 * API entry point: load configuration, wire dependencies, listen on the public and admin
 * ports, start background services, and drain on SIGTERM/SIGINT.
 */
import http from 'node:http';
import { ConfigError, loadConfig, type Config } from '../config';
import { wireApi } from '../deps';
import { demoBanner } from '../embedded/demo-credentials';
import { createAdminServer } from '../http/admin';
import { createApp } from '../http/app';
import { createShutdown, onSignals } from '../lifecycle';
import { createLogger } from '../logger';

/** Above nginx's upstream keepalive_timeout (60 s), so idle upstream sockets never 502. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(config.logLevel, { service: 'radar-api' });
  const deps = await wireApi(config, logger);
  let shuttingDown = false;

  const app = createApp({ ...deps, logger, corsOrigins: config.corsOrigins, cacheControl: config.cacheControl });
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  server.requestTimeout = 30_000;

  let started = false;
  const admin = createAdminServer({
    readiness: () => {
      if (shuttingDown) return { ready: false, reason: 'shutting down' };
      if (!started) return { ready: false, reason: 'starting' };
      if (!deps.probe.reachable()) return { ready: false, reason: 'archive store unreachable' };
      return { ready: true };
    },
  });

  const port = await listen(server, config.port, config.host);
  const adminPort = await listen(admin, config.adminPort, config.host);
  for (const service of deps.services) await service.start();
  started = true;
  logger.info({ port, adminPort, embedded: config.embedded }, 'radar API listening');
  if (deps.demo) {
    const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    process.stderr.write(`${demoBanner(`http://${host}:${port}`, deps.demo)}\n`);
  }

  const shutdown = createShutdown({
    logger,
    servers: [server],
    lateServers: [admin],
    drainS: config.drainS,
    beginShutdown: () => {
      shuttingDown = true;
    },
    closers: [...[...deps.services].reverse().map((s) => () => s.stop()), deps.close],
  });
  onSignals(shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`radar API failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
