/**
 * Drain with keep-alive: a request that arrives on a kept-alive connection after shutdown has
 * begun is answered, with `Connection: close`. The request is sent after the drain began, on a
 * connection still busy with an 11 MB download whose head (keep-alive) the client has read.
 */
import net from 'node:net';
import { bigArchive as buildBigArchive } from '../fixtures/archives';
import { request } from '../harness/http-client';
import { stackAuth, startProductionStack, type ProductionStack } from '../harness/production-stack';
import { recentTimestamp } from '../harness/timestamps';
import { waitFor } from '../harness/wait';

jest.setTimeout(30_000);

const BIG = recentTimestamp(20);
const bigArchive = buildBigArchive(BIG);

// Production mode: the leased rate limit decides synchronously, so the status answer is
// written inside the request listener (embedded mode's memory limiter answers with a promise).
let stack: ProductionStack;
beforeAll(async () => {
  stack = await startProductionStack({ replicas: 1, env: { RADAR_DRAIN_S: '10' } });
  await stack.publish(BIG, bigArchive);
  // The key's first lease is a round trip; later decisions come from the leased block.
  for (let i = 0; i < 3; i++)
    await request(stack.baseUrls[0]!, '/status.json', { headers: stackAuth() });
});
afterAll(() => stack?.stop());

async function inFlight(): Promise<number> {
  const text = (
    await request(`http://127.0.0.1:${stack.replicas[0]!.adminPort}`, '/metrics')
  ).body.toString();
  return Number(/^radar_http_requests_in_flight (\d+)/m.exec(text)?.[1] ?? 0);
}

/** Splits `data` into the two responses: A's head and body length, B's head. */
function splitResponses(data: Buffer): { headA: string; bodyA: number; headB: string } {
  const endA = data.indexOf('\r\n\r\n');
  const headA = data.subarray(0, endA).toString('latin1');
  const length = Number(/content-length: (\d+)/i.exec(headA)?.[1]);
  const startB = endA + 4 + length;
  const endB = data.indexOf('\r\n\r\n', startB);
  return {
    headA,
    bodyA: Math.min(length, data.length - endA - 4),
    headB: endB === -1 ? '' : data.subarray(startB, endB).toString('latin1'),
  };
}

it('a request parsed during the drain gets Connection: close; the download finishes', async () => {
  const headers = Object.entries(stackAuth())
    .map(([n, v]) => `${n}: ${v}\r\n`)
    .join('');
  const socket = net.connect(stack.replicas[0]!.port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const chunks: Buffer[] = [];
  // The download's head arrives before the drain (it is kept alive), then the client stops
  // reading until the drain has begun.
  const firstChunk = new Promise<void>((resolve) =>
    socket.once('data', (c: Buffer) => {
      chunks.push(c);
      socket.pause();
      resolve();
    }),
  );
  socket.write(`GET /tiles/${BIG}.pmtiles HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`);
  await firstChunk;
  await waitFor(async () => (await inFlight()) >= 1, 5000, 'the download in flight');

  // The connection is busy, so the drain does not close it; the next request on it is
  // parsed (and answered, after the download) while the drain runs.
  const drained = stack.replicas[0]!.shutdown();
  socket.write(`GET /status.json HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`);
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.resume();
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await drained;

  const { headA, bodyA, headB } = splitResponses(Buffer.concat(chunks));
  expect(headA).toMatch(/^HTTP\/1\.1 200 /);
  expect(bodyA).toBe(bigArchive.length);
  expect(headB).toMatch(/^HTTP\/1\.1 200 /);
  expect(headB).toMatch(/\r\nconnection: close/i);
});
