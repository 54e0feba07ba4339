/**
 * Slow clients against a real replica (`startApiServer`, so the real `http.Server` settings of
 * src/http/http-server.ts): slowloris clients that send their head one byte per second and
 * never finish, and clients that connect and send nothing. Each must be cut off by the
 * server's request timeout (`RADAR_REQUEST_TIMEOUT_S`, set to 3 s here; the server checks
 * every second), with nothing or a 408 error record, and while they hang on, ordinary
 * requests must keep being answered promptly.
 */
import net from 'node:net';
import { auth } from '../harness/embedded-api';
import { startHostileApi, type HostileApi } from '../harness/fuzz/hostile-api';
import { buildRequest, rawExchange } from '../harness/raw-socket';

const REQUEST_TIMEOUT_MS = 3_000;
/** The server's `connectionsCheckingInterval`: how often request timeouts are enforced. */
const CHECK_INTERVAL_MS = 1_000;
const CUT_DEADLINE_MS = REQUEST_TIMEOUT_MS + CHECK_INTERVAL_MS + 2_000;

jest.setTimeout(CUT_DEADLINE_MS + 30_000);

let api: HostileApi;
beforeAll(async () => {
  api = await startHostileApi({
    env: { RADAR_REQUEST_TIMEOUT_S: String(REQUEST_TIMEOUT_MS / 1000) },
  });
});
afterAll(() => api?.stop());

interface SlowClient {
  readonly kind: 'slowloris' | 'idle';
  readonly started: number;
  closedAfterMs?: number;
  received: Buffer;
  bytesSent: number;
  readonly socket: net.Socket;
}

function openSlowClient(kind: SlowClient['kind'], port: number): SlowClient {
  const socket = net.connect(port, '127.0.0.1');
  const client: SlowClient = {
    kind,
    started: Date.now(),
    received: Buffer.alloc(0),
    bytesSent: 0,
    socket,
  };
  const head = `GET /status.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ${'a'.repeat(400)}\r\n\r\n`;
  let timer: NodeJS.Timeout | undefined;
  if (kind === 'slowloris') {
    timer = setInterval(() => {
      if (socket.destroyed || client.bytesSent >= head.length - 4) return; // never completes the head
      socket.write(head[client.bytesSent]!);
      client.bytesSent++;
    }, 1000);
  }
  socket.on('data', (chunk: Buffer) => (client.received = Buffer.concat([client.received, chunk])));
  socket.on('error', () => {});
  socket.on('close', () => {
    clearInterval(timer);
    client.closedAfterMs ??= Date.now() - client.started;
  });
  return client;
}

it('slowloris and idle clients are cut off by the request timeout and never hold the server', async () => {
  const clients = [
    ...Array.from({ length: 40 }, () => openSlowClient('slowloris', api.port)),
    ...Array.from({ length: 20 }, () => openSlowClient('idle', api.port)),
  ];
  const latencies: number[] = [];
  try {
    // Ordinary requests every 200 ms while the slow clients hold on (and a few after).
    while (clients.some((c) => c.closedAfterMs === undefined) || latencies.length < 15) {
      if (Date.now() - clients[0]!.started > CUT_DEADLINE_MS) break;
      const outcome = await rawExchange(
        api.port,
        buildRequest('GET', '/status.json', Object.entries(auth())),
        {
          timeoutMs: 5000,
        },
      );
      expect(outcome.kind === 'response' ? outcome.response.status : outcome.kind).toBe(200);
      latencies.push(outcome.elapsedMs);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    for (const c of clients) c.socket.destroy();
  }

  const summary = clients.map((c) => ({
    kind: c.kind,
    closedAfterMs: c.closedAfterMs,
    sent: c.bytesSent,
  }));
  process.stdout.write(
    `[slow clients] ${clients.length} held on; cut after ${Math.min(...summary.map((s) => s.closedAfterMs ?? Infinity))}-` +
      `${Math.max(...summary.map((s) => s.closedAfterMs ?? Infinity))} ms; ${latencies.length} ordinary requests meanwhile, ` +
      `slowest ${Math.max(...latencies)} ms\n`,
  );
  for (const c of clients) {
    expect({
      kind: c.kind,
      cut: c.closedAfterMs !== undefined && c.closedAfterMs <= CUT_DEADLINE_MS,
    }).toEqual({ kind: c.kind, cut: true });
    // Not before the request timeout: a slow but honest client gets its full time.
    expect(c.closedAfterMs!).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 1000);
    const text = c.received.toString('latin1');
    if (text !== '') {
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(text).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
      expect(text.endsWith('{"error":{"code":408,"message":"Request Timeout"}}\n')).toBe(true);
    }
  }
  expect(latencies.length).toBeGreaterThan(10);
  expect(Math.max(...latencies)).toBeLessThan(2000);
});
