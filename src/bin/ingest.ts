/**
 * Ingest worker entry point (`npm run ingest`): watches the archive bucket (notifications
 * where supported, periodic listing everywhere), validates and publishes into Redis while it
 * holds the leader lease, and serves `/healthz` and `/readyz` on its own `ADMIN_PORT`.
 */
import { loadConfigOrExit } from '../config';
import { buildIngest } from '../wiring/ingest';
import { createLogger } from '../logger';
import { onFatalErrors, onSignals } from '../wiring/lifecycle';

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  if (config.catalog.kind !== 'redis') {
    process.stderr.write(
      'Invalid configuration:\n  - REDIS_URL: the ingest worker publishes into Redis; set it\n',
    );
    process.exit(2);
  }
  const logger = createLogger(config.logLevel, { service: 'radar-ingest' });
  const ingest = await buildIngest(config, { logger });
  onFatalErrors({ logger, shutdown: ingest.shutdown, deadlineMs: 10_000 });
  onSignals(ingest.shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`ingest worker failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
