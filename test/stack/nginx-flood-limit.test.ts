/**
 * The edge's per-address flood limits through the real nginx binary:
 * - with the shipped limits, one key's whole default quota (1,200 requests per 60 s), each
 *   request with its own CORS preflight as a browser sends them, fits in one burst from one
 *   address, and the request after it is refused by the key's limit (a replica's 429), not by
 *   the edge;
 * - the edge's own 429s (provoked with low limits in a rendered test config) carry the JSON
 *   record, `Retry-After` and X-RateLimit-* describing the limit that refused them.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { LocalNginx } from '../../tools/stack/local-nginx';
import { NGINX_TEMPLATE_PATH } from '../../tools/stack/render-nginx';
import { buildArchive } from '../fixtures/archives';
import { accessLog, edgeRequest, nginxPrefix, startEdge } from '../harness/edge-stack';
import type { RawResponse } from '../harness/http-client';
import { startProductionStack, stackAuth, type ProductionStack } from '../harness/production-stack';
import { waitFor } from '../harness/wait';
import { recentTimestamp } from '../harness/timestamps';

jest.setTimeout(120_000);

const TS = recentTimestamp(1);
const ARCHIVE = `/tiles/${TS}.pmtiles`;
const ORIGIN = 'https://maps.example.org';
const BURST_KEY = 'rk_flood-burst-0123456789';
let stack: ProductionStack;
let replicas: string[];

beforeAll(async () => {
  // One replica: the burst measures the edge alone. (The shared quota across several replicas
  // is the limiter's contract, tested with its own suites.)
  stack = await startProductionStack({ replicas: 1, env: { RADAR_TRUST_PROXY: '1' } });
  replicas = stack.replicas.map((r) => `127.0.0.1:${r.port}`);
  // A key of its own with the default quota, spent only by the burst below.
  await stack.addKeys([{ id: 'burst', apiKey: BURST_KEY }]);
  await stack.publish(TS, buildArchive(TS, 2));
});
afterAll(() => stack?.stop());

/** Runs `tasks` with at most `concurrency` in flight, in order. */
async function pooled<T>(count: number, concurrency: number, task: (i: number) => Promise<T>) {
  const results: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

function countByStatus(answers: readonly RawResponse[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const res of answers) out[res.status] = (out[res.status] ?? 0) + 1;
  return out;
}

describe('shipped limits', () => {
  let nginx: LocalNginx;
  beforeAll(async () => {
    nginx = await startEdge(replicas);
  });
  afterAll(() => nginx?.stop());

  it("one key's full default quota, each request with its preflight, in one burst from one address", async () => {
    // A map client's browser behind one NAT address: a preflight, then the ranged read, per
    // URL; 24 keep-alive connections (a few tabs' worth).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 24, localAddress: '127.0.0.3' });
    const range = (i: number) => `bytes=${i % 4096}-${(i % 4096) + 99}`;
    const started = Date.now();
    try {
      const pairs = await pooled(1200, 24, async (i) => {
        const preflight = await edgeRequest(nginx.url, `${ARCHIVE}?frame=${i}`, {
          method: 'OPTIONS',
          agent,
          headers: {
            Origin: ORIGIN,
            'Access-Control-Request-Method': 'GET',
            'Access-Control-Request-Headers': 'authorization, x-app, range',
          },
        });
        const read = await edgeRequest(nginx.url, ARCHIVE, {
          agent,
          headers: { ...stackAuth(BURST_KEY), Origin: ORIGIN, Range: range(i) },
        });
        return [preflight, read] as const;
      });
      const seconds = (Date.now() - started) / 1000;
      const preflights = countByStatus(pairs.map(([p]) => p));
      const reads = countByStatus(pairs.map(([, r]) => r));
      console.info(
        `[nginx-flood-limit] 1200 preflights ${JSON.stringify(preflights)}, 1200 reads ${JSON.stringify(reads)} in ${seconds.toFixed(1)} s`,
      );
      expect(preflights).toEqual({ 204: 1200 });
      expect(reads).toEqual({ 206: 1200 });
      // 24 reads are in flight at once, so the last one started need not be the last one
      // counted: the quota is spent when some read reports nothing left.
      const reads1200 = pairs.map(([, r]) => r);
      expect(new Set(reads1200.map((r) => r.headers['x-ratelimit-limit']))).toEqual(
        new Set(['1200']),
      );
      const remaining = reads1200.map((r) => Number(r.headers['x-ratelimit-remaining']));
      expect(Math.min(...remaining)).toBe(0);
      expect(Math.max(...remaining)).toBeLessThan(1200);

      // The next one is the key's own 429 from a replica, not the edge's.
      const over = await edgeRequest(nginx.url, ARCHIVE, {
        agent,
        headers: stackAuth(BURST_KEY),
      });
      expect(over.status).toBe(429);
      expect(over.headers['x-ratelimit-limit']).toBe('1200');
      const log = await accessLog(nginx);
      expect(log.filter((line) => line.limit_req === 'REJECTED')).toEqual([]);
      expect(log.filter((line) => line.status === 429)).toHaveLength(1);
      expect(log.find((line) => line.status === 429)!.upstream_status).toBe('429');
    } finally {
      agent.destroy();
    }
  });
});

/** The shipped template with `edits` applied (test-only knobs on unmarked lines). */
async function editedTemplate(dir: string, edits: Array<[string, string]>): Promise<string> {
  let text = await fs.readFile(NGINX_TEMPLATE_PATH, 'utf8');
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`template has no "${from}"`);
    text = text.split(from).join(to);
  }
  const file = path.join(dir, 'template.conf');
  await fs.writeFile(file, text);
  return file;
}

function expectEdge429(res: RawResponse, limit: number): void {
  expect(res.status).toBe(429);
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.json()).toEqual({ error: { code: 429, message: 'Too Many Requests' } });
  expect(res.headers['retry-after']).toBe('1');
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
  expect(res.headers['access-control-allow-origin']).toBe('*');
  expect(String(res.headers['access-control-expose-headers'])).toContain('X-RateLimit-Reset');
}

describe("the edge's own 429 (low limits in a rendered test config)", () => {
  let nginx: LocalNginx;
  let dir: string;
  beforeAll(async () => {
    dir = await nginxPrefix();
    // Refill slowly (1 per minute) so a burst's refusals do not depend on the machine's pace,
    // and read the clock from a test header so X-RateLimit-Reset's carries can be checked.
    const templatePath = await editedTemplate(dir, [
      ['rate=200r/s', 'rate=1r/m'],
      ['rate=10r/s', 'rate=1r/m'],
      ['map $msec $radar_now_s', 'map $http_x_test_clock $radar_now_s'],
    ]);
    nginx = await startEdge(replicas, { templatePath, floodLimits: { client: 5, anonymous: 3 } });
  });
  afterAll(async () => {
    await nginx?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('a flood with credentials: the first 5 reach a replica, the rest get the edge record with the limit of 5', async () => {
    const answers = await pooled(12, 4, () =>
      edgeRequest(nginx.url, '/status.json', {
        localAddress: '127.0.0.4',
        headers: { ...stackAuth(), 'X-Test-Clock': '1763884801.250' },
      }),
    );
    expect(countByStatus(answers)).toEqual({ 200: 5, 429: 7 });
    for (const res of answers.filter((r) => r.status === 429)) {
      expectEdge429(res, 5);
      expect(res.headers['x-ratelimit-reset']).toBe('1763884802');
    }
    // The replicas' own answers keep the key's headers.
    expect(answers.find((r) => r.status === 200)!.headers['x-ratelimit-limit']).toBe('1200');
  });

  it('an anonymous flood: its own, smaller limit of 3', async () => {
    const answers = await pooled(8, 4, () =>
      edgeRequest(nginx.url, '/status.json', {
        localAddress: '127.0.0.5',
        headers: { 'X-Test-Clock': '1763884799.999' },
      }),
    );
    expect(countByStatus(answers)).toEqual({ 401: 3, 429: 5 });
    for (const res of answers.filter((r) => r.status === 429)) {
      expectEdge429(res, 3);
      expect(res.headers['x-ratelimit-reset']).toBe('1763884800');
    }
  });

  it.each([
    ['1700000000.000', '1700000001'],
    ['1700000008.5', '1700000009'],
    ['1700000009.5', '1700000010'],
    ['1709999999.5', '1710000000'],
    ['1799999999.001', '1800000000'],
  ])('X-RateLimit-Reset is the next second: %s -> %s', async (clock, reset) => {
    // 127.0.0.6 has spent its anonymous budget after the first 3 requests of this table.
    let res: RawResponse;
    do {
      res = await edgeRequest(nginx.url, '/x', {
        localAddress: '127.0.0.6',
        headers: { 'X-Test-Clock': clock },
      });
    } while (res.status !== 429);
    expect(res.headers['x-ratelimit-reset']).toBe(reset);
  });
});

describe("the edge's connection limit (rendered with a limit of 2, in front of a stalled upstream)", () => {
  let nginx: LocalNginx;
  let stalled: net.Server;
  const held = new Set<net.Socket>();
  beforeAll(async () => {
    // An upstream that accepts and never answers keeps each proxied request in progress.
    stalled = net.createServer((socket) => {
      held.add(socket);
      socket.on('close', () => held.delete(socket));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    const port = (stalled.address() as net.AddressInfo).port;
    nginx = await startEdge([`127.0.0.1:${port}`], { floodLimits: { connections: 2 } });
  });
  afterAll(async () => {
    await nginx?.stop();
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => stalled.close(resolve));
  });

  it('the third request in progress gets the edge record with the limit of 2 and a real reset', async () => {
    const hanging = [0, 1].map(() =>
      edgeRequest(nginx.url, '/status.json', {
        localAddress: '127.0.0.7',
        headers: stackAuth(),
        timeoutMs: 60_000,
      }).catch(() => undefined),
    );
    await waitFor(async () => held.size === 2, 10_000, 'two requests held upstream');
    const before = Math.floor(Date.now() / 1000);
    const refused = await edgeRequest(nginx.url, '/status.json', {
      localAddress: '127.0.0.7',
      headers: stackAuth(),
    });
    const after = Math.floor(Date.now() / 1000);
    expectEdge429(refused, 2);
    const reset = Number(refused.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(before + 1);
    expect(reset).toBeLessThanOrEqual(after + 1);
    for (const socket of held) socket.destroy();
    await Promise.all(hanging);
  });
});
