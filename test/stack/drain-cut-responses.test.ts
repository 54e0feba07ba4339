/**
 * The drain ends only after every response it cut has been recorded. Node calls a server's
 * close callback as soon as its connection count reaches zero, which is before the destroyed
 * sockets emit `close` and so before each response's `close` (where the answer writer records
 * a cut response, its usage included). A shutdown that flushed usage on that callback lost the
 * requests cut at the deadline; these tests hold the drain to the responses' own `close`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createConnectionDrain } from '../../src/http/connection-drain';

/** A server whose responses send a first chunk and then wait forever; closes are recorded. */
async function stallingServer(): Promise<{ server: http.Server; port: number; closed: string[] }> {
  const closed: string[] = [];
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Length': '1000000' });
    res.write(Buffer.alloc(1000));
    res.once('close', () => closed.push(req.url ?? ''));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, closed };
}

/** Starts a download of `path` and resolves once its first bytes arrived. */
function startDownload(port: number, path: string): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.once('data', () => resolve(req));
      res.on('error', () => {});
    });
    req.on('error', (err) => {
      if (!req.destroyed) reject(err);
    });
  });
}

it('a response cut at the deadline is closed (and recorded) before the drain resolves', async () => {
  const { server, port, closed } = await stallingServer();
  const drain = createConnectionDrain(server, { idleCloseMs: 60_000 });
  await Promise.all(['/a', '/b', '/c'].map((path) => startDownload(port, path)));
  await drain.drain(50);
  expect(closed.sort()).toEqual(['/a', '/b', '/c']);
});

it('a response whose client leaves as the drain begins is recorded before it resolves', async () => {
  const { server, port, closed } = await stallingServer();
  const drain = createConnectionDrain(server, { idleCloseMs: 60_000 });
  const client = await startDownload(port, '/left');
  const drained = drain.drain(10_000);
  client.destroy();
  await drained;
  expect(closed).toEqual(['/left']);
});

it('a server without connections drains at once', async () => {
  const { server } = await stallingServer();
  await createConnectionDrain(server, { idleCloseMs: 60_000 }).drain(10_000);
  expect(server.listening).toBe(false);
});
