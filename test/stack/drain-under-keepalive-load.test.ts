/**
 * A graceful drain resets no request. Clients keep sending, back to back, on many kept-alive
 * connections while a replica process gets SIGTERM:
 * - through the real nginx (shipped config: upstream connections kept alive, idle timeout 4 s)
 *   in front of two replicas: nginx's error log must show no upstream reset or premature close
 *   (a reset is answered only because nginx retries elsewhere; without a retrying balancer it
 *   is a 502), and every client answer is a success;
 * - straight to the replica: every request either gets its answer or is refused before it is
 *   sent (the listener is closed); none is sent and then reset.
 */
import http from 'node:http';
import { buildArchive } from '../fixtures/archives';
import { spawnReplica, startEdge, type SpawnedReplica } from '../harness/edge-stack';
import { startProductionStack, STACK_APP, type ProductionStack } from '../harness/production-stack';
import { recentTimestamp } from '../harness/timestamps';
import { waitFor } from '../harness/wait';
import type { LocalNginx } from '../../tools/stack/local-nginx';

jest.setTimeout(90_000);

const KEY = 'rk_drain-load-0123456789';
const headers = { Authorization: `Bearer ${KEY}`, 'X-App': `Bearer ${STACK_APP}` };
const timestamp = recentTimestamp();
const requests = [
  { path: '/status.json' },
  { path: `/tiles/${timestamp}.pmtiles`, range: 'bytes=0-16383' },
  { path: `/tiles/${timestamp}.pmtiles`, range: 'bytes=20000-20699' },
];

let stack: ProductionStack;
beforeAll(async () => {
  stack = await startProductionStack({ replicas: 0 });
  await stack.addKeys([{ id: 'drain', apiKey: KEY, limit: 100_000_000 }]);
  await stack.s3.put(`${timestamp}.pmtiles`, buildArchive(timestamp, 4));
});
afterAll(() => stack?.stop());

type Outcome =
  | { readonly kind: 'answered'; readonly status: number }
  | { readonly kind: 'refused' } // ECONNREFUSED: never sent
  | { readonly kind: 'reset'; readonly code: string }; // sent, then the connection died

/** One GET on `agent`, classified by what happened to it. */
function send(baseUrl: string, agent: http.Agent, i: number): Promise<Outcome> {
  const { path, range } = requests[i % requests.length]!;
  const url = new URL(path, baseUrl);
  return new Promise((resolve) => {
    const req = http.get(
      url,
      { agent, headers: range ? { ...headers, Range: range } : headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ kind: 'answered', status: res.statusCode ?? 0 }));
        res.on('error', (err: NodeJS.ErrnoException) =>
          resolve({ kind: 'reset', code: err.code ?? err.message }),
        );
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(
        err.code === 'ECONNREFUSED'
          ? { kind: 'refused' }
          : { kind: 'reset', code: err.code ?? err.message },
      ),
    );
  });
}

/** `clients` loops, each on its own kept-alive connection, sending until `stop()`. */
function keepSending(baseUrl: string, clients: number) {
  const outcomes: Outcome[] = [];
  let running = true;
  const agents = Array.from(
    { length: clients },
    () => new http.Agent({ keepAlive: true, maxSockets: 1 }),
  );
  const loops = agents.map(async (agent, c) => {
    for (let i = c; running; i++) {
      const outcome = await send(baseUrl, agent, i);
      outcomes.push(outcome);
      // A refused connection means the replica is gone: ask again a little later.
      if (outcome.kind === 'refused') await new Promise((r) => setTimeout(r, 50));
    }
  });
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(loops);
      for (const agent of agents) agent.destroy();
      return outcomes;
    },
  };
}

function tally(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) {
    const key =
      o.kind === 'answered' ? String(o.status) : o.kind === 'reset' ? `reset ${o.code}` : 'refused';
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

async function terminate(replica: SpawnedReplica): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) =>
    replica.process.child.once('exit', (code) => resolve(code)),
  );
  replica.process.child.kill('SIGTERM');
  return exited;
}

it('through nginx: no upstream reset, no failed answer', async () => {
  const replicas = [
    await spawnReplica(stack, { RADAR_DRAIN_S: '10' }),
    await spawnReplica(stack, { RADAR_DRAIN_S: '10' }),
  ];
  let nginx: LocalNginx | undefined;
  try {
    nginx = await startEdge(replicas.map((r) => `127.0.0.1:${r.port}`));
    const load = keepSending(nginx.url, 24);
    await waitFor(() => load.outcomes.length >= 400, 20_000, 'load running', 20);
    const before = load.outcomes.length;
    const code = await terminate(replicas[1]!);
    const afterExit = load.outcomes.length;
    await waitFor(() => load.outcomes.length >= afterExit + 300, 20_000, 'load after exit', 20);
    const outcomes = await load.stop();
    const errors = nginx.errors();
    console.info(
      `[drain-under-load] via nginx: ${outcomes.length} requests (${afterExit - before} during the drain): ${JSON.stringify(tally(outcomes))}; exit ${code}`,
    );
    expect(code).toBe(0);
    expect(afterExit - before).toBeGreaterThan(0);
    expect(tally(outcomes)).toEqual(expect.not.objectContaining({ refused: expect.anything() }));
    expect(
      outcomes.filter((o) => o.kind !== 'answered' || (o.status !== 200 && o.status !== 206)),
    ).toEqual([]);
    expect(errors).not.toMatch(/Connection reset by peer|prematurely closed|recv\(\) failed/);
  } finally {
    await nginx?.stop();
    for (const replica of replicas) await replica.process.stop('SIGKILL');
  }
});

it('straight to the replica: every request is answered or refused unsent, none reset', async () => {
  const replica = await spawnReplica(stack, { RADAR_DRAIN_S: '10' });
  try {
    const load = keepSending(replica.url, 24);
    await waitFor(() => load.outcomes.length >= 400, 20_000, 'load running', 20);
    const code = await terminate(replica);
    const outcomes = await load.stop();
    const counts = tally(outcomes);
    console.info(
      `[drain-under-load] direct: ${outcomes.length} requests: ${JSON.stringify(counts)}; exit ${code}`,
    );
    expect(code).toBe(0);
    expect(outcomes.filter((o) => o.kind === 'reset')).toEqual([]);
    expect(
      outcomes.filter((o) => o.kind === 'answered' && o.status !== 200 && o.status !== 206),
    ).toEqual([]);
    expect(counts.refused).toBeGreaterThan(0); // the load really outlived the listener
  } finally {
    await replica.process.stop('SIGKILL');
  }
});
