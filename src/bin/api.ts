/**
 * API entry point (`npm start`): read the configuration, start one replica, print the demo
 * credentials in embedded mode, and drain on SIGTERM/SIGINT.
 */
import { startApiServer } from '../api-server';
import { loadConfigOrExit } from '../config';
import { demoBanner } from '../embedded/demo-credentials';
import { onSignals } from '../lifecycle';
import { createLogger } from '../logger';

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const logger = createLogger(config.logLevel, { service: 'radar-api' });
  const api = await startApiServer(config, logger);
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
