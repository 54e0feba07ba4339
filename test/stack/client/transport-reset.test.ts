/**
 * The client library against a service whose connections are reset before any byte of the
 * answer (as an edge proxy's reload does to idle kept-alive connections): the GET is sent
 * again, a bounded number of times; an abort is never retried. The service is the real API
 * behind a TCP proxy that resets the first connections as soon as their request arrives.
 */
import net from 'node:net';
import { createRadarTransport } from '../../../src/client/transport';
import { buildArchive } from '../../fixtures/archives';
import { APPS, KEYS } from '../../harness/embedded-api';
import { startViewerApi, type ViewerApi } from '../../harness/browser-api';

const TS = '202611221400';
let api: ViewerApi;
let server: net.Server;
let resetsLeft = 0;
let connections = 0;
let baseUrl: string;
const open = new Set<net.Socket>();

beforeAll(async () => {
  api = await startViewerApi({ windowS: 60 });
  await api.publish(TS, buildArchive(TS, 1));
  await api.waitForAllListed([TS]);
  const target = new URL(api.baseUrl);
  server = net.createServer((socket) => {
    connections += 1;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    if (resetsLeft > 0) {
      resetsLeft -= 1;
      // The request arrives, then a reset: not one byte of the answer.
      socket.once('data', () => socket.resetAndDestroy());
      return;
    }
    const out = net.connect(Number(target.port), target.hostname);
    out.on('error', () => socket.destroy());
    socket.pipe(out).pipe(socket);
    socket.once('close', () => out.destroy());
    out.once('close', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of open) socket.destroy();
  await new Promise((resolve) => server?.close(resolve));
  await api?.stop();
});

/** Resets to come, on connections opened from now on (pooled ones are closed first). */
async function resetNext(count: number): Promise<number> {
  for (const socket of open) socket.destroy();
  // Long enough for the client's pool to see those sockets close and drop them.
  await new Promise((resolve) => setTimeout(resolve, 200));
  resetsLeft = count;
  return connections;
}

function transport(maxNetworkRetries?: number) {
  return createRadarTransport({
    baseUrl,
    credentials: { apiKey: KEYS.good, appId: APPS.web },
    networkBackoffMs: 10,
    ...(maxNetworkRetries === undefined ? {} : { maxNetworkRetries }),
  });
}

it('sends a GET reset before any byte of the answer again, and gets the answer', async () => {
  const before = await resetNext(2);
  const response = await transport().get('/status.json');
  expect(response.status).toBe(200);
  expect(((await response.json()) as { timestamps: unknown }).timestamps).toEqual(
    expect.any(Array),
  );
  expect(connections - before).toBe(3);
});

it('gives up after the bounded retries with the network error', async () => {
  const before = await resetNext(3);
  await expect(transport(1).get('/status.json')).rejects.toMatchObject({ name: 'TypeError' });
  expect(connections - before).toBe(2);
  resetsLeft = 0;
});

it('never retries an aborted request', async () => {
  const before = await resetNext(0);
  const controller = new AbortController();
  controller.abort();
  await expect(
    transport().get('/status.json', { signal: controller.signal }),
  ).rejects.toMatchObject({ name: 'AbortError' });
  expect(connections - before).toBe(0);
});
