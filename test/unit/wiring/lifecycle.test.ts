/** The shutdown plan: readiness first, closers in order despite failures, once only. */
import { createSilentLogger } from '../../../src/logger';
import { createShutdown } from '../../../src/wiring/lifecycle';

it('begins shutdown first, then runs every closer in order, even after one fails', async () => {
  const events: string[] = [];
  const logger = createSilentLogger();
  const warnings: unknown[] = [];
  logger.warn = ((obj: unknown) => void warnings.push(obj)) as typeof logger.warn;
  const shutdown = createShutdown({
    logger,
    servers: [],
    drainS: 0,
    beginShutdown: () => events.push('not ready'),
    closers: [
      async () => void events.push('stop ingest'),
      async () => {
        events.push('stop catalog');
        throw new Error('catalog stop failed');
      },
      async () => void events.push('close clients'),
    ],
  });
  await shutdown();
  expect(events).toEqual(['not ready', 'stop ingest', 'stop catalog', 'close clients']);
  expect(warnings).toHaveLength(1);
});

it('runs once: later calls share the first shutdown', async () => {
  let runs = 0;
  const shutdown = createShutdown({
    logger: createSilentLogger(),
    servers: [],
    drainS: 0,
    beginShutdown: () => runs++,
    closers: [],
  });
  const [a, b] = [shutdown(), shutdown()];
  expect(a).toBe(b);
  await a;
  await shutdown();
  expect(runs).toBe(1);
});
