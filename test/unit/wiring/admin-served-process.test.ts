/**
 * The frame of the ingest worker and the MRMS producer: readiness follows the start and the
 * shutdown, work stops before clients close, and a failed start leaves nothing open.
 */
import { createSilentLogger } from '../../../src/logger';
import { createRegistry } from '../../../src/observability/registry';
import { startAdminServedProcess } from '../../../src/wiring/admin-served-process';
import type { Component } from '../../../src/wiring/component';
import { freePort } from '../../harness/spawned-api';

async function readiness(port: number): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: await res.json() };
}

function recorded(
  name: string,
  events: string[],
  hooks: { start?: () => Promise<void>; stop?: () => Promise<void> } = {},
): Component {
  return {
    name,
    start: async () => {
      events.push(`start ${name}`);
      await hooks.start?.();
    },
    stop: async () => {
      events.push(`stop ${name}`);
      await hooks.stop?.();
    },
  };
}

/** Both components started, then the work stopped in reverse, then the clients in order. */
const WHOLE_LIFE = [
  'start work',
  'start watcher',
  'stop watcher',
  'stop work',
  'stop store',
  'stop redis',
];

/** The admin listener is closed: nothing answers on its port any more. */
async function expectClosed(port: number): Promise<void> {
  await expect(fetch(`http://127.0.0.1:${port}/readyz`)).rejects.toThrow();
}

/** A process on `port` with two components (`work`, then `watcher`) and two clients. */
function startRecorded(port: number, events: string[], watcher: Parameters<typeof recorded>[2]) {
  return startAdminServedProcess({
    logger: createSilentLogger(),
    admin: { port, host: '127.0.0.1' },
    registry: createRegistry(),
    components: [recorded('work', events), recorded('watcher', events, watcher)],
    clients: [recorded('store', events), recorded('redis', events)],
  });
}

it('is "starting" until every component has started, then ready, then "shutting down"', async () => {
  const port = await freePort();
  const events: string[] = [];
  let seenWhileStarting: { status: number; body: unknown } | undefined;
  let seenWhileStopping: { status: number; body: unknown } | undefined;
  const running = await startRecorded(port, events, {
    start: async () => {
      seenWhileStarting = await readiness(port);
    },
    stop: async () => {
      seenWhileStopping = await readiness(port);
    },
  });
  expect(running.adminPort).toBe(port);
  expect(seenWhileStarting).toEqual({
    status: 503,
    body: { status: 'not ready', reason: 'starting' },
  });
  expect(await readiness(port)).toEqual({ status: 200, body: { status: 'ready' } });
  await running.shutdown();
  // The admin listener closes last, so probes saw the shutdown while the work stopped.
  expect(seenWhileStopping).toEqual({
    status: 503,
    body: { status: 'not ready', reason: 'shutting down' },
  });
  expect(events).toEqual(WHOLE_LIFE);
  await expectClosed(port);
});

it('shuts down what it opened when a component fails to start, then rethrows', async () => {
  const port = await freePort();
  const events: string[] = [];
  await expect(
    startRecorded(port, events, {
      start: async () => {
        throw new Error('bucket unreachable');
      },
    }),
  ).rejects.toThrow('bucket unreachable');
  expect(events).toEqual(WHOLE_LIFE);
  await expectClosed(port);
});
