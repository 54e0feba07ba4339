/**
 * What the edge sends to and takes from a replica, observed from the replica's side: two
 * scripted upstreams (plain Node servers that record what they receive) behind the real nginx
 * running the shipped config. Covers the forwarded headers (client address replaced, request
 * id, conditionals untouched, HTTP/1.1 keep-alive), retries only on connection errors and
 * never after a response began or on a 5xx, gzip for JSON only, slow clients cut off before
 * they reach a replica, and `nginx -t` on the shipped and the rendered file.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { checkNginxConfig, type LocalNginx } from '../../tools/stack/local-nginx';
import { NGINX_TEMPLATE_PATH } from '../../tools/stack/render-nginx';
import { edgeRequest, startEdge } from '../harness/edge-stack';

jest.setTimeout(30_000);

interface Seen {
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly httpVersion: string;
}

interface ScriptedUpstream {
  readonly name: string;
  readonly server: http.Server;
  readonly address: string;
  readonly seen: Seen[];
  connections: number;
}

/** One scripted replica; `flaky` resets the connection on /flaky instead of answering. */
async function startUpstream(name: string, flaky: boolean): Promise<ScriptedUpstream> {
  const upstream = { name, seen: [] as Seen[], connections: 0 } as {
    -readonly [K in keyof ScriptedUpstream]: ScriptedUpstream[K];
  };
  const server = http.createServer((req, res) => {
    upstream.seen.push({
      url: req.url ?? '',
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      httpVersion: req.httpVersion,
    });
    const url = req.url ?? '';
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(text),
        ...headers,
      });
      res.end(text);
    };
    if (url === '/echo')
      return json(200, { upstream: name }, { 'X-Request-Id': 'echoed-by-upstream' });
    const failure = /^\/fail\/(\d{3})$/.exec(url);
    if (failure) {
      const code = Number(failure[1]);
      return json(code, { error: { code, message: `upstream ${name}` } }, { 'X-From': name });
    }
    if (url === '/flaky') {
      if (flaky) return req.socket.destroy();
      return json(200, { upstream: name });
    }
    if (url === '/partial') {
      res.writeHead(200, { 'Content-Type': 'application/vnd.pmtiles', 'Content-Length': '100000' });
      res.write(Buffer.alloc(1000, 7));
      setTimeout(() => req.socket.destroy(), 50);
      return;
    }
    if (url === '/big.json') return json(200, { padding: 'x'.repeat(4000) }, { ETag: '"doc-1"' });
    if (url === '/small.json') return json(200, { ok: true });
    if (url === '/big.pmtiles' || url === '/big.bin') {
      const type = url.endsWith('.pmtiles')
        ? 'application/vnd.pmtiles'
        : 'application/octet-stream';
      res.writeHead(200, { 'Content-Type': type, 'Content-Length': '300000', ETag: '"abc"' });
      return res.end(Buffer.alloc(300000, 'a'));
    }
    json(404, { error: { code: 404, message: 'Not Found' } });
  });
  server.on('connection', () => (upstream.connections += 1));
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  upstream.server = server;
  upstream.address = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return upstream;
}

let flakyUpstream: ScriptedUpstream;
let steadyUpstream: ScriptedUpstream;
let nginx: LocalNginx;
const allSeen = () => [...flakyUpstream.seen, ...steadyUpstream.seen];
const clear = () => {
  flakyUpstream.seen.length = 0;
  steadyUpstream.seen.length = 0;
};

/** A slow client that sends one header byte every 500 ms; resolves when nginx closes it. */
let slowloris: Promise<{ closedAfterMs: number; received: string }>;

beforeAll(async () => {
  flakyUpstream = await startUpstream('flaky', true);
  steadyUpstream = await startUpstream('steady', false);
  nginx = await startEdge([flakyUpstream.address, steadyUpstream.address]);
  slowloris = new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(nginx.port, '127.0.0.1');
    const text = 'GET /slowloris HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'z'.repeat(200);
    let sent = 0;
    let received = '';
    const timer = setInterval(() => {
      if (sent < text.length && !socket.destroyed) socket.write(text[sent++]!);
    }, 500);
    socket.on('data', (c) => (received += c.toString()));
    socket.on('error', () => {});
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error('nginx kept a slow client for 20 s'));
    }, 20_000);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ closedAfterMs: Date.now() - started, received });
    });
  });
  slowloris.catch(() => {});
});
afterAll(async () => {
  await nginx?.stop();
  for (const upstream of [flakyUpstream, steadyUpstream]) {
    upstream?.server.closeAllConnections();
    upstream?.server.close();
  }
});

it('forwards the client address (replaced, never appended), the request id and untouched conditionals over HTTP/1.1', async () => {
  clear();
  const sent = {
    Authorization: 'Bearer rk_some-key_~+/=',
    'X-App': 'bEaReR  some-app',
    Range: 'bytes=0-0, 5-9',
    'If-Range': 'W/"odd etag"',
    'If-None-Match': '"a", W/"b"',
    'If-Match': '*',
    'Accept-Encoding': 'gzip',
    'X-Forwarded-For': '203.0.113.9',
    'X-Real-IP': '203.0.113.9',
    'X-Request-Id': 'client-chosen-id',
  };
  const res = await edgeRequest(nginx.url, '/echo', { headers: sent, localAddress: '127.0.0.7' });
  expect(res.status).toBe(200);
  const [seen] = allSeen();
  expect(seen!.httpVersion).toBe('1.1');
  expect(seen!.headers['x-forwarded-for']).toBe('127.0.0.7');
  expect(seen!.headers['x-real-ip']).toBe('127.0.0.7');
  expect(seen!.headers['x-forwarded-proto']).toBe('http');
  expect(seen!.headers['x-request-id']).toBe('client-chosen-id');
  // Upstream keep-alive: nginx sends no "Connection: close".
  expect(seen!.headers.connection).toBeUndefined();
  for (const [name, value] of Object.entries(sent)) {
    if (['X-Forwarded-For', 'X-Real-IP', 'X-Request-Id'].includes(name)) continue;
    expect([name, seen!.headers[name.toLowerCase()]]).toEqual([name, value]);
  }
  // The client sees one id, nginx's, not the upstream's echo beside it.
  expect(res.headers['x-request-id']).toBe('client-chosen-id');
});

it('sends its generated request id to the upstream and to the client alike', async () => {
  clear();
  const res = await edgeRequest(nginx.url, '/echo');
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
  expect(allSeen()[0]!.headers['x-request-id']).toBe(res.headers['x-request-id']);
});

it('passes a replica’s 5xx through untouched and never retries it on another replica', async () => {
  for (const code of [500, 502, 503, 504]) {
    clear();
    const res = await edgeRequest(nginx.url, `/fail/${code}`);
    expect(res.status).toBe(code);
    expect(res.headers['x-from']).toMatch(/^(flaky|steady)$/);
    expect(res.json()).toEqual({ error: { code, message: `upstream ${res.headers['x-from']}` } });
    expect(allSeen()).toHaveLength(1);
  }
});

it('retries a connection error on the other replica, so the client never sees it', async () => {
  clear();
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => edgeRequest(nginx.url, '/flaky')),
  );
  expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
  expect(answers.every((r) => r.json<{ upstream: string }>().upstream === 'steady')).toBe(true);
  // The flaky replica was tried (then marked failed for fail_timeout) and each of its
  // failures cost a second attempt, never a third.
  expect(flakyUpstream.seen.length).toBeGreaterThanOrEqual(1);
  expect(steadyUpstream.seen).toHaveLength(10);
});

it('does not retry once a response has begun: a replica dying mid-body cuts the client off', async () => {
  clear();
  const outcome = await edgeRequest(nginx.url, '/partial').then(
    (res) => `complete ${res.body.length}`,
    (err: Error) => `failed: ${err.message}`,
  );
  expect(outcome).toMatch(/^failed/);
  expect(allSeen()).toHaveLength(1);
});

it('compresses JSON only, never application/vnd.pmtiles or other binaries, and keeps their Content-Length', async () => {
  const gzip = { 'Accept-Encoding': 'gzip' };
  const big = await edgeRequest(nginx.url, '/big.json', { headers: gzip });
  expect(big.headers['content-encoding']).toBe('gzip');
  expect(big.headers.vary).toBe('Accept-Encoding');
  expect(JSON.parse(zlib.gunzipSync(big.body).toString())).toEqual({ padding: 'x'.repeat(4000) });
  const small = await edgeRequest(nginx.url, '/small.json', { headers: gzip });
  expect(small.headers['content-encoding']).toBeUndefined();
  for (const binary of ['/big.pmtiles', '/big.bin']) {
    const res = await edgeRequest(nginx.url, binary, { headers: gzip });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-length']).toBe('300000');
    expect(res.headers.etag).toBe('"abc"');
    expect(res.body.length).toBe(300000);
  }
});

it('reuses one upstream connection for sequential requests', async () => {
  const before = flakyUpstream.connections + steadyUpstream.connections;
  for (let i = 0; i < 20; i++)
    expect((await edgeRequest(nginx.url, '/small.json')).status).toBe(200);
  // At most one new connection per replica (least_conn alternates between idle replicas).
  expect(flakyUpstream.connections + steadyUpstream.connections - before).toBeLessThanOrEqual(2);
});

it('nginx -t accepts the shipped file (with a resolvable upstream host) and the rendered one', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-nginx-t-'));
  try {
    const shipped = await fs.readFile(NGINX_TEMPLATE_PATH, 'utf8');
    // `api` resolves only inside docker-compose; nothing else is changed for the check.
    const resolvable = shipped.replace(/^(\s*server\s+)api:8080\b/m, '$1127.0.0.1:8080');
    expect(resolvable).not.toBe(shipped);
    await fs.writeFile(path.join(dir, 'nginx.conf'), resolvable);
    await expect(checkNginxConfig(path.join(dir, 'nginx.conf'))).resolves.toBeUndefined();
    await expect(checkNginxConfig(nginx.configFile)).resolves.toBeUndefined();
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

it('cuts off a client that trickles its request header, after client_header_timeout (10 s), before any replica sees it', async () => {
  const { closedAfterMs, received } = await slowloris;
  expect(closedAfterMs).toBeGreaterThanOrEqual(9_500);
  expect(closedAfterMs).toBeLessThan(13_000);
  expect(received).toBe('');
  expect(allSeen().some((s) => s.url === '/slowloris')).toBe(false);
}, 25_000);

it('reloads with a new upstream list (nginx -t, then SIGHUP) without dropping requests', async () => {
  clear();
  const during = Promise.all(
    Array.from({ length: 20 }, () => edgeRequest(nginx.url, '/small.json')),
  );
  await nginx.reload([steadyUpstream.address]);
  expect((await during).map((r) => r.status)).toEqual(Array(20).fill(200));
  clear();
  const after = await Promise.all(
    Array.from({ length: 10 }, () => edgeRequest(nginx.url, '/echo')),
  );
  expect(after.map((r) => r.json<{ upstream: string }>().upstream)).toEqual(
    Array(10).fill('steady'),
  );
  expect(flakyUpstream.seen).toHaveLength(0);
  await expect(nginx.reload(['not a valid address'])).rejects.toThrow(/nginx -t failed/);
});
