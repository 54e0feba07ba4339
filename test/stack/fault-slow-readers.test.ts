/**
 * Fault matrix, slow readers vs store sockets (docs/store-reads.md): clients ask one S3-backed
 * replica for a large archive and never read (raw TCP clients that send the request and then
 * never read again, so the kernel never grows their receive buffers), from many loopback
 * addresses with one key, past that key's and those addresses' shares of open store reads.
 * Meanwhile a map-client load runs through nginx, and another client (other key, other address)
 * reads uncached 1 MB ranges of another archive straight from the same replica.
 *
 * - one key holds at most `RADAR_STORE_READS_PER_KEY` and one address at most
 *   `RADAR_STORE_READS_PER_CLIENT` open store reads (the shipped 128 and 32); reads past a share
 *   are refused at once with 503 `Retry-After: 1` and the error record, and counted in
 *   `radar_object_store_reads_refused_total` by reason;
 * - the breaker stays closed and no store error is counted: waiting for a local socket, a
 *   stalled client, or a store busy streaming to them is not a store failure (the local s3rver,
 *   in this test process, answers new requests late while ~160 large streams fill their
 *   buffers: those reads are given up as `store-busy`, 503 `Retry-After: 1`);
 * - the other client's reads of the other archive and the map clients keep being served;
 * - every stalled response is cut after the send timeout and the store requests it held are
 *   closed (time to recovery).
 */
import net from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
// The store's breaker defaults: the replicas here run with them.
import { DEFAULT_BREAKER_THRESHOLD as BREAKER_THRESHOLD } from '../../src/adapters/s3/archive-store';
import { hashApiKey } from '../../src/domain/key-registry';
import { createRedisKeyAdminStore } from '../../src/adapters/redis/key-admin';
import { archiveKey } from '../../src/adapters/redis/keys';
import { buildArchive } from '../fixtures/archives';
import { edgeRequest } from '../harness/edge-stack';
import {
  delay,
  faultAuth,
  replicaStatus,
  reportFault,
  sample,
  scrape,
  startFaultStack,
  type FaultStack,
} from '../harness/fault-stack';
import { loadRunning, startFaultLoad } from '../harness/fault-load';
import { isServed, summarizeLoad } from '../harness/map-client-load';
import { STACK_APP } from '../harness/production-stack';
import { recentTimestamps } from '../harness/timestamps';
import { waitFor } from '../harness/wait';

jest.setTimeout(120_000);

const SEND_TIMEOUT_S = 4;
const PER_KEY = 128; // the shipped defaults (src/config.ts), set explicitly
const PER_CLIENT = 32;
/** The shipped first-byte limit (the other fault scenarios use 1 s). */
const S3_TIMEOUT_MS = 2000;
/** Key A: over its share, from addresses each within theirs. */
const KEY_A_CLIENTS = 144;
const KEY_A_ADDRESSES = 8;
/** Key B: over one address's share. */
const KEY_B_CLIENTS = 40;
const KEYS = { a: 'rk_fault-stall-a-0123456789', b: 'rk_fault-stall-b-0123456789' };
const OTHER_KEY = 'rk_fault-other-0123456789';
const BIG_BYTES = 48 << 20;
const OTHER_BYTES = 16 << 20;
const PROBE_WINDOW = 1 << 20;

let fault: FaultStack;
let bigTs: string;
let otherTs: string;

function padded(ts: string, bytes: number): Buffer {
  const archive = Buffer.alloc(bytes, 0x5a);
  buildArchive(ts, 2).copy(archive); // valid header and directories, then padding
  return archive;
}

beforeAll(async () => {
  fault = await startFaultStack({
    replicaEnv: {
      RADAR_SEND_TIMEOUT_S: String(SEND_TIMEOUT_S),
      RADAR_STORE_READS_PER_KEY: String(PER_KEY),
      RADAR_STORE_READS_PER_CLIENT: String(PER_CLIENT),
      RADAR_S3_TIMEOUT_MS: String(S3_TIMEOUT_MS),
    },
  });
  await createRedisKeyAdminStore(fault.stack.client).update((data) => ({
    ...data,
    keys: [
      ...data.keys,
      ...Object.entries({
        'fault-stall-a': KEYS.a,
        'fault-stall-b': KEYS.b,
        'fault-other': OTHER_KEY,
      }).map(([id, key]) => ({
        id,
        sha256: hashApiKey(key),
        apps: [STACK_APP],
        limit: 10_000_000,
        disabled: false,
      })),
    ],
  }));
  // Older than every seeded frame: the map clients animate the newest ones.
  [bigTs, otherTs] = recentTimestamps(2, fault.frames.length + 2) as [string, string];
  await fault.stack.s3.put(`${bigTs}.pmtiles`, padded(bigTs, BIG_BYTES));
  await fault.stack.s3.put(`${otherTs}.pmtiles`, padded(otherTs, OTHER_BYTES));
  // s3rver writes an object in place, so a listing during the upload can publish a prefix;
  // ingest re-validates it, and the test starts once both are published at their full size.
  await waitFor(
    async () =>
      (await fault.stack.client.hget(archiveKey(bigTs), 'size')) === String(BIG_BYTES) &&
      (await fault.stack.client.hget(archiveKey(otherTs), 'size')) === String(OTHER_BYTES),
    20_000,
    'big archives published at full size',
    100,
  );
  await waitFor(
    async () => {
      for (const r of fault.replicas) {
        const { res } = await replicaStatus(r, faultAuth(OTHER_KEY));
        const head = await edgeRequest(r.url, `/tiles/${bigTs}.pmtiles`, {
          method: 'HEAD',
          headers: faultAuth(OTHER_KEY),
        });
        if (res.status !== 200 || head.headers['content-length'] !== String(BIG_BYTES))
          return false;
      }
      return true;
    },
    20_000,
    'big archives served at full size by both replicas',
    100,
  );
});
afterAll(async () => {
  await fault?.stop();
});

interface Stalled {
  readonly key: keyof typeof KEYS;
  readonly address: string;
  readonly socket: net.Socket;
  /** The status code of the response, once its head arrived. */
  status(): number | undefined;
  retryAfter(): string | undefined;
  /** Epoch ms when the head arrived. */
  answeredAt(): number;
  closed(): boolean;
}

/**
 * A raw TCP client that sends one GET for the whole archive, reads the first chunk (the head)
 * and nothing more: its receive buffer stays at the kernel's initial size (autotuning only
 * grows a buffer the application reads from).
 */
function stalledClient(port: number, key: keyof typeof KEYS, address: string): Stalled {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: address });
  let status: number | undefined;
  let retryAfter: string | undefined;
  let answeredAt = Infinity;
  let closed = false;
  socket.on('error', () => {});
  socket.on('close', () => (closed = true));
  socket.once('data', (chunk: Buffer) => {
    socket.pause();
    const head = chunk.toString('latin1', 0, Math.min(chunk.length, 2000));
    answeredAt = Date.now();
    status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
    retryAfter = /\r\nretry-after: *(\S+)/i.exec(head)?.[1];
  });
  const headers = Object.entries(faultAuth(KEYS[key]))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`GET /tiles/${bigTs}.pmtiles HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`);
  return {
    key,
    address,
    socket,
    status: () => status,
    retryAfter: () => retryAfter,
    answeredAt: () => answeredAt,
    closed: () => closed,
  };
}

function countBy<T>(items: readonly T[], by: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[by(item)] = (out[by(item)] ?? 0) + 1;
  return out;
}

it('slow readers hold at most their shares of store sockets; the breaker stays closed and others are served', async () => {
  const replica = fault.replicas[0]!;
  const metrics = async () => {
    const text = await scrape(replica.adminPort);
    const v = (name: string, labels: Record<string, string> = {}) =>
      sample(text, name, labels) ?? 0;
    const refused = (reason: string) => v('radar_object_store_reads_refused_total', { reason });
    return {
      refusedKey: refused('key'),
      refusedClient: refused('client'),
      refusedSocketWait: refused('socket-wait'),
      storeBusy: refused('store-busy'),
      storeUnavailable: v('radar_object_store_errors_total', {
        operation: 'get_range',
        kind: 'unavailable',
      }),
      breakerOpen: v('radar_object_store_breaker_open'),
      clientGone: v('radar_http_requests_total', {
        route: '/tiles/:timestamp.pmtiles',
        method: 'GET',
        status: '499',
      }),
    };
  };
  const before = await metrics();
  const breakerSeen: number[] = [];
  const loopDelay = monitorEventLoopDelay({ resolution: 20 }); // this process hosts s3rver
  loopDelay.enable();
  const load = startFaultLoad(fault, 60_000);
  await loadRunning(load);

  // The other client: uncached 1 MB ranges of the other archive, one after another.
  const probes: Array<{ status: number; retryAfter?: string }> = [];
  let probing = true;
  const prober = (async () => {
    for (let i = 0; probing; i++) {
      const offset = 65536 + (i % 15) * PROBE_WINDOW;
      const res = await edgeRequest(replica.url, `/tiles/${otherTs}.pmtiles`, {
        headers: { ...faultAuth(OTHER_KEY), Range: `bytes=${offset}-${offset + PROBE_WINDOW - 1}` },
        localAddress: '127.0.0.250',
        timeoutMs: 10_000,
      }).catch(() => undefined);
      probes.push({
        status: res?.status ?? 0,
        retryAfter: res?.headers['retry-after'] as string | undefined,
      });
      await delay(100);
    }
  })();

  const startedAt = Date.now();
  const stalled: Stalled[] = [];
  for (let i = 0; i < KEY_A_CLIENTS; i++) {
    stalled.push(stalledClient(replica.port, 'a', `127.0.1.${1 + (i % KEY_A_ADDRESSES)}`));
    if (i % 24 === 23) await delay(50);
  }
  for (let i = 0; i < KEY_B_CLIENTS; i++)
    stalled.push(stalledClient(replica.port, 'b', '127.0.2.1'));
  const answeredMs = await waitFor(
    async () => {
      breakerSeen.push((await metrics()).breakerOpen);
      return stalled.every((c) => c.status() !== undefined || c.closed());
    },
    30_000,
    'every stalled request answered',
    100,
  );
  const held = stalled.filter((c) => c.status() === 200);
  // Held at once: a send-timeout cut frees a share no sooner than SEND_TIMEOUT_S after the
  // first response started, so every 200 that arrived before then held its read together.
  const firstHeld = Math.min(...held.map((c) => c.answeredAt()));
  const atOnce = held.filter((c) => c.answeredAt() < firstHeld + SEND_TIMEOUT_S * 1000);
  const heldByKey = countBy(atOnce, (c) => c.key);
  const heldByAddress = countBy(atOnce, (c) => c.address);
  const refused = stalled.filter((c) => c.status() !== 200);

  // Recovery: every held response cut by the send timeout, its store request closed.
  const cutMs = await waitFor(
    async () => {
      const now = await metrics();
      breakerSeen.push(now.breakerOpen);
      return now.clientGone - before.clientGone >= held.length;
    },
    30_000,
    'stalled responses cut',
    100,
  );
  const upstream = fault.stack.s3.upstream;
  if (upstream) await waitFor(() => upstream.inFlight() === 0, 20_000, 'store reads closed', 50);
  const recoveredMs = Date.now() - startedAt;
  const afterRecovery = await edgeRequest(replica.url, `/tiles/${bigTs}.pmtiles`, {
    headers: { ...faultAuth(KEYS.a), Range: `bytes=1000000-2999999` },
    localAddress: '127.0.1.1',
  });
  probing = false;
  await prober;
  const outcomes = await load.stop();
  loopDelay.disable();
  for (const c of stalled) c.socket.destroy();
  const after = await metrics();
  const delta = Object.fromEntries(
    Object.entries(after).map(([k, v]) => [k, v - before[k as keyof typeof before]]),
  ) as typeof after;
  const loadFailures = outcomes.filter((o) => !isServed(o));

  await reportFault('slow-readers', {
    ...summarizeLoad(outcomes),
    stalledClients: stalled.length,
    stalledByStatus: countBy(stalled, (c) => String(c.status() ?? 'closed')),
    heldAtOnceByKey: heldByKey,
    heldOverall: held.length,
    maxHeldByOneAddress: Math.max(...Object.values(heldByAddress)),
    refusedWithRetryAfter1: refused.filter((c) => c.retryAfter() === '1').length,
    allAnsweredAfterMs: answeredMs,
    cutAfterAnsweredMs: cutMs,
    storeReadsClosedAfterMs: recoveredMs,
    otherClientProbes: probes.length,
    otherClientProbesByStatus: countBy(probes, (p) => String(p.status)),
    refusedCounted: {
      key: delta.refusedKey,
      client: delta.refusedClient,
      socketWait: delta.refusedSocketWait,
      storeBusy: delta.storeBusy,
    },
    storeErrorsAdded: delta.storeUnavailable,
    breakerEverOpen: breakerSeen.some((v) => v === 1),
    clientGone499: delta.clientGone,
    testProcessLoopDelayMaxMs: Math.round(loopDelay.max / 1e6),
  });

  // Shares: never more than the key's or the address's, refusals are the documented answer.
  expect(heldByKey.a ?? 0).toBeLessThanOrEqual(PER_KEY);
  expect(heldByKey.b ?? 0).toBeLessThanOrEqual(PER_CLIENT);
  for (const n of Object.values(heldByAddress)) expect(n).toBeLessThanOrEqual(PER_CLIENT);
  for (const c of refused) {
    expect(c.status()).toBe(503);
    expect(c.retryAfter()).toBe('1');
  }
  const refusedCounted =
    delta.refusedKey + delta.refusedClient + delta.refusedSocketWait + delta.storeBusy;
  expect(refusedCounted).toBeGreaterThanOrEqual(refused.length);
  // Not a store failure: the breaker never opened, no store error counted.
  expect(breakerSeen.every((v) => v === 0)).toBe(true);
  expect(after.breakerOpen).toBe(0);
  // Without the store-busy rule this run counted 147 (breaker open). A store error here can only
  // be a first-byte timeout during which the local s3rver delivered nothing to anyone: on a
  // starved machine (load 16 on 2 cores) that happened twice; never enough to open the breaker.
  expect(delta.storeUnavailable).toBeLessThan(BREAKER_THRESHOLD);
  // Others kept being served: anything not served was the busy answer, never a failure.
  const probeFailures = probes.filter((p) => p.status !== 206);
  expect(probeFailures.every((p) => p.status === 503 && p.retryAfter === '1')).toBe(true);
  expect(probeFailures.length).toBeLessThanOrEqual(probes.length / 5);
  expect(loadFailures.every((o) => o.status === 503 && o.errorRecord)).toBe(true);
  expect(loadFailures.length).toBeLessThanOrEqual(outcomes.length / 10);
  // Recovered: every held response was cut, and the store serves the same key and address.
  expect(delta.clientGone).toBeGreaterThanOrEqual(held.length);
  expect(afterRecovery.status).toBe(206);
});
