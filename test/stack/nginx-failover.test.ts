/**
 * The edge under replica failures and idle connections: two replica processes
 * (`node dist/bin/api.js`, built by `npm test`) behind the real nginx running the shipped
 * config, with Redis, an S3 endpoint and the ingest worker. A replica SIGKILLed under load
 * must cost no request started after the kill; upstream connections left idle past nginx's
 * keep-alive timeout must never turn into 502s.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { LocalNginx } from '../../tools/stack/local-nginx';
import { buildArchive } from '../fixtures/archives';
import {
  accessLog,
  edgeRequest,
  spawnReplica,
  startEdge,
  type SpawnedReplica,
} from '../harness/edge-stack';
import { startMapClientLoad, type MapRequest } from '../harness/map-client-load';
import { startProductionStack, STACK_APP, type ProductionStack } from '../harness/production-stack';
import { waitFor } from '../harness/wait';
import { recentTimestamp } from '../harness/timestamps';

jest.setTimeout(60_000);

/** nginx's upstream idle timeout in this test (60 s shipped), so the boundary is reached quickly. */
const UPSTREAM_IDLE_S = 1;
const LOAD_KEY = 'rk_edge-load-0123456789';
const headers = { Authorization: `Bearer ${LOAD_KEY}`, 'X-App': `Bearer ${STACK_APP}` };

let stack: ProductionStack;
let replicas: SpawnedReplica[];
let nginx: LocalNginx;
const timestamp = recentTimestamp();
const archivePath = `/tiles/${timestamp}.pmtiles`;

/** ESTABLISHED TCP connections whose remote end is one of `ports` (Linux /proc/net/tcp). */
async function establishedTo(ports: number[]): Promise<number> {
  const table = await fs.readFile('/proc/net/tcp', 'utf8');
  const wanted = new Set(ports.map((p) => p.toString(16).toUpperCase().padStart(4, '0')));
  return table
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length > 3 && cols[3] === '01' && wanted.has(cols[2]!.split(':')[1]!))
    .length;
}

/** A map client's requests: the status, the header range, a tile range. */
const mapRequests: MapRequest[] = [
  { kind: 'status', path: '/status.json' },
  { kind: 'header', path: archivePath, range: 'bytes=0-16383' },
  { kind: 'tile', path: archivePath, range: 'bytes=20000-20699' },
];

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 0 });
  await stack.addKeys([{ id: 'load', apiKey: LOAD_KEY, limit: 1_000_000 }]);
  await stack.s3.put(`${timestamp}.pmtiles`, buildArchive(timestamp, 4));
  // LOG_LEVEL info: the replicas' request log lines are checked against nginx's.
  replicas = await Promise.all([
    spawnReplica(stack, { LOG_LEVEL: 'info' }),
    spawnReplica(stack, { LOG_LEVEL: 'info' }),
  ]);
  nginx = await startEdge(
    replicas.map((r) => `127.0.0.1:${r.port}`),
    { upstreamKeepaliveTimeoutS: UPSTREAM_IDLE_S },
  );
  console.info(
    `[nginx-failover] backends: ${stack.backends}; replicas ${replicas.map((r) => r.port).join(', ')}; nginx ${nginx.url}`,
  );
});
afterAll(async () => {
  await nginx?.stop();
  for (const replica of replicas ?? []) await replica.process.stop('SIGKILL');
  await stack?.stop();
});

it('reuses idle upstream connections, closes them at its own idle timeout first, and never answers 502', async () => {
  const ports = replicas.map((r) => r.port);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const statuses: number[] = [];
  try {
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) => {
          const { path, range } = mapRequests[i % mapRequests.length]!;
          return edgeRequest(nginx.url, path, {
            agent,
            headers: range ? { ...headers, Range: range } : headers,
          });
        }),
      );
      statuses.push(...answers.map((r) => r.status));
      // Kept for reuse after the burst...
      expect(await establishedTo(ports)).toBeGreaterThan(0);
      // ...and closed by nginx once idle past its timeout, long before Node's 65 s, so
      // nginx never sends on a socket the replica is closing.
      await new Promise((r) => setTimeout(r, UPSTREAM_IDLE_S * 1000 + 600));
      expect(await establishedTo(ports)).toBe(0);
    }
    // And once more after the last idle period.
    statuses.push((await edgeRequest(nginx.url, '/status.json', { agent, headers })).status);
  } finally {
    agent.destroy();
  }
  expect(statuses.filter((s) => s !== 200 && s !== 206)).toEqual([]);
  expect(nginx.errors()).not.toMatch(/upstream prematurely closed|Connection reset/);
});

it('logs one request id on both sides, and the replica sees the client address (one trusted hop)', async () => {
  const res = await edgeRequest(nginx.url, '/status.json', {
    localAddress: '127.0.0.9',
    headers: { ...headers, 'X-Request-Id': 'trace-both-sides', 'X-Forwarded-For': '198.51.100.1' },
  });
  expect(res.status).toBe(200);
  expect(res.headers['x-request-id']).toBe('trace-both-sides');
  const replicaLine = () =>
    replicas
      .flatMap((r) => r.process.stdout().split('\n'))
      .filter((line) => line.includes('"trace-both-sides"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)[0];
  await waitFor(() => replicaLine() !== undefined, 3000, 'replica request log line');
  expect(replicaLine()).toMatchObject({
    requestId: 'trace-both-sides',
    status: 200,
    ip: '127.0.0.9',
  });
  await waitFor(
    async () => (await accessLog(nginx)).some((l) => l.request_id === 'trace-both-sides'),
    3000,
    'nginx access log line',
  );
});

it('loses no new request when a replica is SIGKILLed under load', async () => {
  let killedAt = Number.POSITIVE_INFINITY;
  // Four map clients on their own addresses (per-IP limits apply per client), 25 requests/s each.
  const load = startMapClientLoad({
    baseUrl: nginx.url,
    headers,
    clients: 4,
    firstAddress: 20,
    pauseMs: 40,
    durationMs: 3000,
    sequence: mapRequests,
  });
  const killer = (async () => {
    await new Promise((r) => setTimeout(r, 1000));
    killedAt = Date.now();
    replicas[1]!.process.child.kill('SIGKILL');
  })();
  const [outcomes] = await Promise.all([load.done, killer]);

  const after = outcomes.filter((o) => o.start >= killedAt);
  const failedAfter = after.filter((o) => o.status !== 200 && o.status !== 206);
  const byStatus: Record<string, number> = {};
  for (const o of outcomes) byStatus[String(o.status)] = (byStatus[String(o.status)] ?? 0) + 1;
  console.info(
    `[nginx-failover] ${outcomes.length} requests (${after.length} after the kill): ${JSON.stringify(byStatus)}, ` +
      `worst ${Math.max(...outcomes.map((o) => o.ms))} ms`,
  );
  expect(after.length).toBeGreaterThan(20);
  expect(failedAfter).toEqual([]);

  // nginx did meet the dead replica and moved the request to the live one.
  const dead = `127.0.0.1:${replicas[1]!.port}`;
  const live = `127.0.0.1:${replicas[0]!.port}`;
  const log = await accessLog(nginx);
  expect(log.some((l) => l.upstream_addr === `${dead}, ${live}`)).toBe(true);
});
