/**
 * API entry point (`npm start`): read the configuration, build one replica, print the demo
 * credentials in embedded mode, and drain on SIGTERM/SIGINT (exit 0) or on a fatal error (exit 1).
 */
import { loadConfig } from '../config';
import { exitStartFailure } from './command-line';
import { demoBanner } from '../embedded/demo-credentials';
import { radarSourceLine } from '../embedded/source-banner';
import { createLogger } from '../logger';
import { onFatalErrors, onSignals } from '../wiring/lifecycle';
import { buildReplica } from '../wiring/replica';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel, { service: 'radar-api' });
  // Notices for the person at the terminal wait until the banner is out, then go straight on.
  let bannerOut = false;
  const pending: string[] = [];
  const notify = (text: string) => {
    if (bannerOut) process.stderr.write(text);
    else pending.push(text);
  };
  const replica = await buildReplica(config, { logger, notify });
  // Drain as at SIGTERM, plus time to close clients.
  onFatalErrors({
    logger,
    shutdown: replica.shutdown,
    deadlineMs: (config.http.drainS + 10) * 1000,
  });
  if (replica.demo) {
    const { host: bound } = config.http;
    const host = bound === '0.0.0.0' || bound === '::' ? 'localhost' : bound;
    process.stderr.write(`${demoBanner(`http://${host}:${replica.port}`, replica.demo)}\n`);
  }
  if (config.embedded) process.stderr.write(`${radarSourceLine(config)}\n`);
  bannerOut = true;
  for (const text of pending.splice(0)) process.stderr.write(text);
  onSignals(replica.shutdown);
}

main().catch((err: unknown) =>
  exitStartFailure(err, (error) => `radar API failed to start: ${error.message}`),
);
