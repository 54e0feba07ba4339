/**
 * Fault matrix, rolling restart (docs/reliability.md): one of two replica processes gets SIGTERM
 * while map clients load the stack through nginx. Expected (shutdown, docs/behaviour.md): zero
 * failed requests at the clients, `/readyz` false no later than the public listener stops
 * accepting, an in-flight download started before the signal finishes completely (a slow
 * client reading a 10 MB archive), and the process exits 0 within RADAR_DRAIN_S.
 */
import http from 'node:http';
import net from 'node:net';
import { bigArchive as buildBigArchive } from '../fixtures/archives';
import { spawnReplica, type SpawnedReplica } from '../harness/edge-stack';
import {
  delay,
  FAULT_REPLICA_ENV,
  faultAuth,
  indexedTimestamps,
  readyz,
  reportFault,
  startFaultStack,
  type FaultStack,
} from '../harness/fault-stack';
import { loadRunning, startFaultLoad } from '../harness/fault-load';
import { isServed, summarizeLoad } from '../harness/map-client-load';
import { settleWithin, waitFor } from '../harness/wait';
import { recentTimestamps } from '../harness/timestamps';

jest.setTimeout(60_000);

const DRAIN_S = 5;
/** Idle time after which a draining replica closes a connection (below DRAIN_S here). */
const DRAIN_IDLE_S = 2;

let fault: FaultStack;
/** A large archive (about 11 MB), older than the frames the load animates. */
const big = recentTimestamps(1, 20)[0]!;
const bigArchive = buildBigArchive(big);

beforeAll(async () => {
  fault = await startFaultStack({ replicaEnv: { RADAR_DRAIN_S: String(DRAIN_S) } });
  await fault.stack.s3.put(`${big}.pmtiles`, bigArchive);
  await waitFor(
    async () => (await indexedTimestamps(fault.stack)).includes(big),
    10_000,
    'big archive published',
    50,
  );
  // Both replicas know it (event or 1 s resync).
  await waitFor(
    async () =>
      (await Promise.all(fault.replicas.map((r) => headStatus(r)))).every((s) => s === 200),
    10_000,
    'big archive on both replicas',
    50,
  );
});
afterAll(async () => {
  await fault?.stop();
});

function headStatus(replica: SpawnedReplica): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: replica.port,
        path: `/tiles/${big}.pmtiles`,
        method: 'HEAD',
        headers: faultAuth(),
        agent: false,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** Whether a TCP connection to the port is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(1000, () => socket.destroy());
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => resolve(false));
  });
}

/**
 * The whole big archive straight from `replica`, read by a client that takes nothing until
 * `release` resolves: the replica is mid-response when the signal arrives. `begun` resolves
 * when the response headers are in.
 */
function slowDownload(
  replica: SpawnedReplica,
  release: Promise<void>,
  agent: http.Agent | false = false,
) {
  let begun!: () => void;
  const started = new Promise<void>((resolve) => (begun = resolve));
  const done = new Promise<{
    status: number;
    bytes: number;
    doneAt: number;
    connection: string | undefined;
    /** When the connection that carried it closed (resolves once the client sees the close). */
    closed: Promise<number>;
  }>((resolve, reject) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port: replica.port,
        path: `/tiles/${big}.pmtiles`,
        headers: faultAuth(),
        agent,
      },
      (res) => {
        res.pause();
        const closed = new Promise<number>((r) => res.socket.once('close', () => r(Date.now())));
        begun();
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            bytes,
            doneAt: Date.now(),
            connection: res.headers.connection,
            closed,
          }),
        );
        res.on('error', reject);
        res.on('aborted', () => reject(new Error(`download aborted after ${bytes} bytes`)));
        void release.then(() => res.resume());
      },
    );
    req.on('error', reject);
  });
  return { started, done };
}

it('SIGTERM to one replica under load: no failed request, readiness first, in-flight download completes, exit 0', async () => {
  const victim = fault.replicas[1]!;
  const load = startFaultLoad(fault, 30_000);
  await loadRunning(load, 30);

  let releaseDownload!: () => void;
  const download = slowDownload(victim, new Promise<void>((r) => (releaseDownload = r)));
  // The response has begun before the signal.
  await download.started;

  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    victim.process.child.once('exit', (code) => resolve({ code, at: Date.now() })),
  );
  let exit: { code: number | null; at: number } | undefined;
  void exited.then((e) => (exit = e));
  const termAt = Date.now();
  victim.process.child.kill('SIGTERM');

  // Watch the victim: public listener (connect) first, then readiness, in each round.
  let notReadyAt: number | undefined;
  let refusedAt: number | undefined;
  let readyWhenRefused: number | undefined;
  const watcher = (async () => {
    while (exit === undefined) {
      const open = await accepts(victim.port);
      const ready = await readyz(victim.adminPort);
      const now = Date.now();
      // No answer (0) counts as not ready too: a probe that times out fails.
      if (ready !== 200 && notReadyAt === undefined) notReadyAt = now;
      if (!open && refusedAt === undefined) {
        refusedAt = now;
        readyWhenRefused = ready;
      }
      await delay(10);
    }
  })();

  // The slow client starts reading once the replica is draining.
  await waitFor(() => notReadyAt !== undefined || exit !== undefined, 5000, 'victim not ready', 10);
  await delay(300);
  releaseDownload();
  const got = await download.done;
  const { code, at: exitAt } = await exited;
  await watcher;
  // The survivors keep serving after the exit.
  const exitIndex = load.outcomes.length;
  await waitFor(() => load.outcomes.length >= exitIndex + 100, 10_000, 'load after exit', 20);
  const outcomes = await load.stop();
  const afterTerm = outcomes.filter((o) => o.start >= termAt);

  await reportFault('replica-sigterm', {
    drainS: DRAIN_S,
    ...summarizeLoad(outcomes),
    afterSignal: summarizeLoad(afterTerm).requests,
    readyzFalseAfterMs: notReadyAt === undefined ? null : notReadyAt - termAt,
    listenerClosedAfterMs: refusedAt === undefined ? null : refusedAt - termAt,
    readyzWhenListenerClosed: readyWhenRefused ?? null,
    inFlightDownload: {
      status: got.status,
      bytes: got.bytes,
      expected: bigArchive.length,
      completedAfterSignalMs: got.doneAt - termAt,
    },
    exitCode: code,
    exitAfterMs: exitAt - termAt,
  });

  expect(summarizeLoad(outcomes.filter((o) => !isServed(o))).byStatus).toEqual({});
  expect(afterTerm.length).toBeGreaterThan(30);
  expect(notReadyAt).toBeDefined();
  expect(refusedAt).toBeDefined();
  // Whenever the listener was seen closed, readiness had already failed (checked just after).
  if (refusedAt !== undefined)
    expect(readyWhenRefused === 503 || readyWhenRefused === 0).toBe(true);
  if (refusedAt !== undefined) expect(notReadyAt!).toBeLessThanOrEqual(refusedAt);
  expect(got.status).toBe(200);
  expect(got.bytes).toBe(bigArchive.length);
  expect(got.doneAt).toBeGreaterThan(termAt);
  // Every byte arrived, so the replica wrote the whole body before exiting. (Its exit and the
  // client's last read reach this process in either order: the tail may still sit in loopback
  // buffers when the replica exits, so the two times are not compared.)
  expect(code).toBe(0);
  expect(exitAt - termAt).toBeLessThanOrEqual(DRAIN_S * 1000 + 3000);
});

it('a draining replica closes a kept-alive connection once it has been idle past RADAR_DRAIN_IDLE_S after its response, and exits then', async () => {
  // nginx keeps upstream connections alive. A connection whose response began (keep-alive)
  // before the signal is not closed the moment that response ends: nginx may already be
  // sending its next request on it, and closing then would reset that request. It is closed
  // once idle past RADAR_DRAIN_IDLE_S (above nginx's upstream idle timeout, so nginx has let
  // go of it by then), not at the RADAR_DRAIN_S deadline, and the process exits then.
  const extra = await spawnReplica(fault.stack, {
    ...FAULT_REPLICA_ENV,
    RADAR_DRAIN_S: String(DRAIN_S),
    RADAR_DRAIN_IDLE_S: String(DRAIN_IDLE_S),
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    let release!: () => void;
    const download = slowDownload(extra, new Promise<void>((r) => (release = r)), agent);
    await download.started;
    const exited = new Promise<number>((resolve) =>
      extra.process.child.once('exit', () => resolve(Date.now())),
    );
    const termAt = Date.now();
    extra.process.child.kill('SIGTERM');
    await waitFor(
      async () => (await readyz(extra.adminPort)) !== 200,
      5000,
      'extra replica draining',
      10,
    );
    release();
    const got = await download.done;
    const exitAt = await exited;
    const code = extra.process.child.exitCode;
    // The child's exit and the socket's FIN reach this process in either order: wait (bounded)
    // for the close to be seen instead of reading it at the exit.
    const closedAt = await settleWithin(got.closed, 2000, () => undefined);

    await reportFault('replica-sigterm-keepalive', {
      drainS: DRAIN_S,
      inFlightResponse: {
        status: got.status,
        bytes: got.bytes,
        connection: got.connection ?? null,
      },
      downloadDoneAfterSignalMs: got.doneAt - termAt,
      connectionClosedAfterDownloadMs: closedAt === undefined ? null : closedAt - got.doneAt,
      exitAfterSignalMs: exitAt - termAt,
      exitAfterDownloadMs: exitAt - got.doneAt,
      exitCode: code,
    });

    expect(got.bytes).toBe(bigArchive.length);
    expect(code).toBe(0);
    // The server ends the connection once it has been idle RADAR_DRAIN_IDLE_S (a sweep runs
    // every 100 ms; 1 s of margin for a loaded machine), well before the drain deadline...
    expect(closedAt).toBeDefined();
    expect(closedAt! - got.doneAt).toBeGreaterThanOrEqual(DRAIN_IDLE_S * 1000 - 200);
    expect(closedAt! - got.doneAt).toBeLessThanOrEqual(DRAIN_IDLE_S * 1000 + 1000);
    // ...and the process is done once nothing is in flight or open.
    expect(exitAt - got.doneAt).toBeLessThanOrEqual(DRAIN_IDLE_S * 1000 + 1500);
    expect(exitAt - termAt).toBeLessThan(DRAIN_S * 1000);
  } finally {
    agent.destroy();
    await extra.process.stop('SIGKILL');
  }
});
