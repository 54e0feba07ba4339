/**
 * API entry point (`npm start`): read the configuration, start one replica, print the demo
 * credentials in embedded mode, and drain on SIGTERM/SIGINT (exit 0) or on a fatal error (exit 1).
 */
import { startApiServer } from '../api-server';
import { loadConfigOrExit } from '../config';
import { demoBanner } from '../embedded/demo-credentials';
import { onFatalErrors, onSignals } from '../lifecycle';
import { createLogger } from '../logger';

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const logger = createLogger(config.logLevel, { service: 'radar-api' });
  const api = await startApiServer(config, logger);
  // Drain as at SIGTERM, plus time to close clients.
  onFatalErrors({ logger, shutdown: api.shutdown, deadlineMs: (config.drainS + 10) * 1000 });
  if (api.deps.demo) {
    const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    process.stderr.write(`${demoBanner(`http://${host}:${api.port}`, api.deps.demo)}\n`);
  }
  onSignals(api.shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`radar API failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
