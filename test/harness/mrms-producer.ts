/**
 * The MRMS producer as a real process (`node dist/bin/mrms.js`, what `npm run mrms` runs),
 * configured by environment like a deployment, with its admin port for metrics; and a reader
 * of its counters. `npm test` builds dist/ before jest runs.
 */
import path from 'node:path';
import { request } from './http-client';
import { freePort, spawnNode, type SpawnedProcess } from './spawned-api';
import { waitFor } from './wait';

export const MRMS_ENTRY = path.resolve(__dirname, '../../dist/bin/mrms.js');

export interface ProducerProcess {
  readonly proc: SpawnedProcess;
  readonly adminPort: number;
  /** The exposition text of `/metrics` now. */
  metrics(): Promise<string>;
  /** The value of one series (`name{labels}` as exposed), 0 when absent. */
  value(series: string): Promise<number>;
  /** Waits until `series` reaches at least `min` (a wide bound: shared CPUs are slow). */
  waitForValue(series: string, min: number, timeoutMs?: number): Promise<void>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Value of `series` in an exposition text (0 when absent). */
export function seriesValue(text: string, series: string): number {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return 0;
}

/**
 * Starts the producer with `env` (names of src/config.ts) on a free admin port, in `cwd`.
 * Resolves once its admin port answers.
 */
export async function startProducer(
  env: Record<string, string>,
  cwd: string,
): Promise<ProducerProcess> {
  const adminPort = await freePort();
  const proc = spawnNode(MRMS_ENTRY, {
    cwd,
    env: {
      HOST: '127.0.0.1',
      ADMIN_PORT: String(adminPort),
      LOG_LEVEL: 'info',
      NOWCAST: '0', // a test of forecasts turns it on
      ...env,
    },
  });
  const admin = `http://127.0.0.1:${adminPort}`;
  const metrics = async () => (await request(admin, '/metrics')).body.toString();
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null)
        throw new Error(
          `mrms producer exited (${proc.child.exitCode}):\n${proc.stderr()}\n${proc.stdout()}`,
        );
      return (await request(admin, '/healthz').catch(() => undefined))?.status === 200;
    },
    30_000,
    'the mrms producer admin port',
    100,
  );
  return {
    proc,
    adminPort,
    metrics,
    value: async (series) => seriesValue(await metrics(), series),
    async waitForValue(series, min, timeoutMs = 90_000) {
      try {
        await waitFor(
          async () => seriesValue(await metrics(), series) >= min,
          timeoutMs,
          `${series} >= ${min}`,
          200,
        );
      } catch (error) {
        throw new Error(
          `${(error as Error).message}; producer log:\n${proc.stdout().slice(-4000)}`,
        );
      }
    },
    stop: () => proc.stop('SIGTERM'),
  };
}
