/**
 * Ingest worker entry point (`npm run ingest`): watches the archive bucket (notifications
 * where supported, periodic listing everywhere), validates and publishes into Redis while it
 * holds the leader lease, and serves `/healthz` and `/readyz` on its own `ADMIN_PORT`.
 */
import { loadConfig } from '../config';
import { exitWhenWritten } from '../shared/flushed-exit';
import { exitStartFailure } from './command-line';
import { buildIngest } from '../wiring/ingest';
import { createLogger } from '../logger';
import { onFatalErrors, onSignals } from '../wiring/lifecycle';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  if (config.catalog.kind !== 'redis') {
    process.stderr.write(
      'Invalid configuration:\n  - REDIS_URL: the ingest worker publishes into Redis; set it\n',
    );
    exitWhenWritten(2);
    return;
  }
  const logger = createLogger(config.logLevel, { service: 'radar-ingest' });
  const ingest = await buildIngest(config, { logger });
  onFatalErrors({ logger, shutdown: ingest.shutdown, deadlineMs: 10_000 });
  onSignals(ingest.shutdown);
}

main().catch((err: unknown) =>
  exitStartFailure(err, (error) => `ingest worker failed to start: ${error.message}`),
);
