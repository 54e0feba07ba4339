/** The shutdown plan: readiness first, closers in order despite failures, once only. */
import type http from 'node:http';
import { createSilentLogger } from '../../../src/logger';
import { createShutdown } from '../../../src/wiring/lifecycle';

it('begins shutdown first, then runs every closer in order, even after one fails', async () => {
  const events: string[] = [];
  const logger = createSilentLogger();
  const warnings: unknown[] = [];
  logger.warn = ((obj: unknown) => void warnings.push(obj)) as typeof logger.warn;
  const shutdown = createShutdown({
    logger,
    drains: [],
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
    drains: [],
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

/** A stand-in for http.Server with the calls the admin listener's close makes. */
function fakeServer(name: string, events: string[]) {
  let finishClose: (() => void) | undefined;
  const server = {
    listening: true,
    closeAllConnections: () => {
      events.push(`${name} cut`);
      finishClose?.();
    },
    close(callback: () => void) {
      events.push(`${name} closing`);
      finishClose = () => {
        server.listening = false;
        events.push(`${name} closed`);
        callback();
      };
      return server;
    },
    finishDrain: () => finishClose?.(),
  };
  return server;
}

it('drains the public listeners before the closers and closes the admin listener last', async () => {
  const events: string[] = [];
  let finishDrain: (() => void) | undefined;
  const admin = fakeServer('admin', events);
  const shutdown = createShutdown({
    logger: createSilentLogger(),
    drains: [
      (deadlineMs) => {
        events.push(`api draining (${deadlineMs} ms)`);
        return new Promise<void>((resolve) => {
          finishDrain = () => {
            events.push('api drained');
            resolve();
          };
        });
      },
    ],
    lateServers: [admin as unknown as http.Server],
    drainS: 30,
    beginShutdown: () => events.push('not ready'),
    closers: [async () => void events.push('close clients')],
  });
  const done = shutdown();
  await new Promise((r) => setImmediate(r));
  // Still draining: nothing closed behind the in-flight responses' back.
  expect(events).toEqual(['not ready', 'api draining (30000 ms)']);
  finishDrain?.();
  await new Promise((r) => setImmediate(r));
  admin.finishDrain();
  await done;
  expect(events).toEqual([
    'not ready',
    'api draining (30000 ms)',
    'api drained',
    'close clients',
    'admin closing',
    'admin closed',
  ]);
});

it('cuts admin connections still open a second after the drain', async () => {
  jest.useFakeTimers();
  try {
    const events: string[] = [];
    const admin = fakeServer('admin', events);
    const shutdown = createShutdown({
      logger: createSilentLogger(),
      drains: [],
      lateServers: [admin as unknown as http.Server],
      drainS: 5,
      beginShutdown: () => undefined,
      closers: [async () => void events.push('close clients')],
    });
    const done = shutdown();
    await jest.advanceTimersByTimeAsync(900);
    expect(events).toEqual(['close clients', 'admin closing']);
    await jest.advanceTimersByTimeAsync(200);
    await done;
    expect(events).toEqual(['close clients', 'admin closing', 'admin cut', 'admin closed']);
  } finally {
    jest.useRealTimers();
  }
});
