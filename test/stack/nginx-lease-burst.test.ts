/**
 * The leased shared quota through the real nginx and two replicas (docs/rate-limits.md): one key's
 * whole default quota (1,200 reads per 60 s) in one concurrent burst, spread by nginx over the
 * replicas, is admitted to within the documented under-admission bound (max(1 % of the limit,
 * one point per replica)) and never beyond the limit, the reads after it included.
 */
import http from 'node:http';
import type { LocalNginx } from '../../tools/stack/local-nginx';
import { buildArchive } from '../fixtures/archives';
import { edgeRequest, startEdge } from '../harness/edge-stack';
import { startProductionStack, stackAuth, type ProductionStack } from '../harness/production-stack';
import { recentTimestamp } from '../harness/timestamps';

jest.setTimeout(120_000);

const TS = recentTimestamp(1);
const ARCHIVE = `/tiles/${TS}.pmtiles`;
const BURST_KEY = 'rk_lease-burst-0123456789';
const LIMIT = 1200; // the default quota (RADAR_RATE_LIMIT)
let stack: ProductionStack;
let nginx: LocalNginx;

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 2, env: { RADAR_TRUST_PROXY: '1' } });
  await stack.addKeys([{ id: 'lease-burst', apiKey: BURST_KEY }]);
  await stack.publish(TS, buildArchive(TS, 2));
  nginx = await startEdge(stack.replicas.map((r) => `127.0.0.1:${r.port}`));
});
afterAll(async () => {
  await nginx?.stop();
  await stack?.stop();
});

it("one key's full default quota in one burst over two replicas: never over, under by at most 1 %", async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 24 });
  let next = 0;
  const statuses: number[] = [];
  try {
    await Promise.all(
      Array.from({ length: 24 }, async () => {
        while (next < LIMIT) {
          const i = next++;
          const res = await edgeRequest(nginx.url, ARCHIVE, {
            agent,
            headers: { ...stackAuth(BURST_KEY), Range: `bytes=${i % 4096}-${(i % 4096) + 99}` },
          });
          statuses.push(res.status);
        }
      }),
    );
    const allowed = statuses.filter((s) => s === 206).length;
    const refused = statuses.filter((s) => s === 429).length;
    console.info(
      `[nginx-lease-burst] ${LIMIT} reads, 2 replicas: ${allowed} x 206, ${refused} x 429`,
    );
    expect(allowed + refused).toBe(LIMIT);
    expect(allowed).toBeLessThanOrEqual(LIMIT);
    expect(allowed).toBeGreaterThanOrEqual(LIMIT - Math.max(LIMIT / 100, 2));
    // Points still held by a replica are spent by the next reads it gets; then the key's 429.
    let after = 0;
    let last = 0;
    for (let i = 0; i < 20 && last !== 429; i += 1) {
      const res = await edgeRequest(nginx.url, ARCHIVE, { agent, headers: stackAuth(BURST_KEY) });
      last = res.status;
      if (res.status === 200) after += 1;
      else {
        expect(res.status).toBe(429);
        expect(res.headers['x-ratelimit-remaining']).toBe('0');
      }
    }
    expect(last).toBe(429);
    expect(allowed + after).toBeLessThanOrEqual(LIMIT);
  } finally {
    agent.destroy();
  }
});
