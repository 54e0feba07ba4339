/**
 * Ingest worker entry point (`npm run ingest`): watches the archive bucket (notifications
 * where supported, periodic listing everywhere), validates and publishes into Redis while it
 * holds the leader lease, serves `/healthz` and `/readyz` on its own `ADMIN_PORT`.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { ConfigError, loadConfig, type Config } from '../config';
import { wireIngest } from '../deps';
import { createAdminServer } from '../http/admin';
import { createShutdown, onSignals } from '../lifecycle';
import { createLogger } from '../logger';

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
  const logger = createLogger(config.logLevel, { service: 'radar-ingest' });
  if (!config.redisUrl) {
    process.stderr.write('Invalid configuration:\n  - REDIS_URL: the ingest worker publishes into Redis; set it\n');
    process.exit(2);
  }
  const owner = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const deps = wireIngest(config, logger, owner);
  let shuttingDown = false;
  let started = false;
  const admin = createAdminServer({
    readiness: () =>
      shuttingDown ? { ready: false, reason: 'shutting down' } : started ? { ready: true } : { ready: false, reason: 'starting' },
  });
  await new Promise<void>((resolve, reject) => {
    admin.once('error', reject);
    admin.listen(config.adminPort, config.host, resolve);
  });
  for (const service of deps.services) await service.start();
  started = true;
  logger.info({ owner, adminPort: config.adminPort, leader: deps.worker.isLeader() }, 'ingest worker running');

  const shutdown = createShutdown({
    logger,
    servers: [],
    lateServers: [admin],
    drainS: 0,
    beginShutdown: () => {
      shuttingDown = true;
    },
    closers: [...[...deps.services].reverse().map((s) => () => s.stop()), deps.close],
  });
  onSignals(shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`ingest worker failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
