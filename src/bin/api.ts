/**
 * API entry point (`npm start`): read the configuration, build one replica, print the demo
 * credentials in embedded mode, and drain on SIGTERM/SIGINT.
 */
import { loadConfigOrExit } from '../config';
import { demoBanner } from '../embedded/demo-credentials';
import { onSignals } from '../wiring/lifecycle';
import { buildReplica } from '../wiring/replica';

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const replica = await buildReplica(config);
  if (replica.demo) {
    const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    process.stderr.write(`${demoBanner(`http://${host}:${replica.port}`, replica.demo)}\n`);
  }
  onSignals(replica.shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`radar API failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
