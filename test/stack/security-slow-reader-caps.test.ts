/**
 * Clients that ask for a large archive and then stop reading, or leave half-way, against a real
 * replica (`buildReplica`, real sockets) in both storage modes: the data directory and an S3
 * endpoint (MinIO container or in-process s3rver).
 *
 * - The send timeout (`RADAR_SEND_TIMEOUT_S`, 2 s here) cuts every response that makes no write
 *   progress, and with it the file descriptor or store request behind it.
 * - One API key and one client address hold at most `RADAR_STORE_READS_PER_KEY` /
 *   `RADAR_STORE_READS_PER_CLIENT` open store reads; past that a read is 503 with `Retry-After`
 *   and the error record, while other keys keep being served.
 * - A client that leaves is a client event: request metrics count it as 499, it is never an
 *   object-store error and never an error-level log line.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import { buildReplica, type Replica as RunningApi } from '../../src/wiring/replica';
import { loadConfig } from '../../src/config';
import { buildArchive } from '../fixtures/archives';
import { auth, KEYS, registryData } from '../harness/embedded-api';
import { sample, scrape } from '../harness/fault-stack';
import { request } from '../harness/http-client';
import { waitFor } from '../harness/wait';
import { startFaultProxy, startS3, type FaultProxy, type S3TestServer } from '../harness/s3-server';

const SEND_TIMEOUT_S = 2;
const PER_KEY = 6;
const PER_CLIENT = 4;
/** Wide bound for a cut: the timeout, the once-a-second sweep and a loaded 2-core machine. */
const CUT_BOUND_MS = SEND_TIMEOUT_S * 1000 + 10_000;
const TS = '202601151200';
/** Far larger than every socket buffer on the way, so a non-reading client stalls the send. */
const ARCHIVE_BYTES = 48 << 20;

jest.setTimeout(120_000);

interface Replica {
  readonly running: RunningApi;
  readonly logs: Array<{ level: number; msg: string }>;
  readonly archivePath: string | undefined;
  stop(): Promise<void>;
}

function bigArchive(): Buffer {
  const head = buildArchive(TS);
  const archive = Buffer.alloc(ARCHIVE_BYTES);
  head.copy(archive);
  return archive; // valid header, directories and tiles, then padding the header does not cover
}

async function startReplica(
  mode: 'dir' | 's3',
  s3?: S3TestServer,
  proxy?: FaultProxy,
): Promise<Replica> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-slow-readers-'));
  const dataDir = path.join(root, 'data');
  await fs.mkdir(dataDir);
  const keysFile = path.join(root, 'keys.json');
  await writeKeyFile(keysFile, registryData());
  const archive = bigArchive();
  let archivePath: string | undefined;
  if (mode === 'dir') {
    archivePath = path.join(dataDir, `${TS}.pmtiles`);
    await fs.writeFile(archivePath, archive);
  } else {
    await s3!.put(`slow/${TS}.pmtiles`, archive);
  }
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_PORT: '0',
    RADAR_DATA_DIR: dataDir,
    RADAR_KEYS_FILE: keysFile,
    RADAR_SIMULATE: '0',
    RADAR_RATE_LIMIT: '1000000',
    RADAR_RETENTION_S: String(100 * 365 * 86400),
    RADAR_DRAIN_S: '1',
    RADAR_SEND_TIMEOUT_S: String(SEND_TIMEOUT_S),
    RADAR_STORE_READS_PER_KEY: String(PER_KEY),
    RADAR_STORE_READS_PER_CLIENT: String(PER_CLIENT),
    RADAR_INGEST_POLL_S: '1',
    LOG_LEVEL: 'info',
  };
  if (mode === 's3') {
    Object.assign(env, {
      S3_ENDPOINT: proxy!.endpoint,
      S3_ACCESS_KEY: s3!.accessKey,
      S3_SECRET_KEY: s3!.secretKey,
      S3_BUCKET: s3!.bucket,
      S3_PREFIX: 'slow/',
      S3_REGION: s3!.region,
    });
  }
  const logs: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() !== '') logs.push(JSON.parse(line) as { level: number; msg: string });
      }
      done();
    },
  });
  const running = await buildReplica(loadConfig(env, root), {
    logger: pino({ level: 'info' }, sink),
  });
  const deadline = Date.now() + 20_000;
  while (!running.ports.catalog.current().get(TS)) {
    if (Date.now() > deadline) throw new Error('archive not published');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    running,
    logs,
    archivePath,
    async stop() {
      await running.shutdown();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

/** A client that sends one GET for the whole archive and then never reads. */
interface StalledClient {
  readonly socket: net.Socket;
  /** The first bytes the server sent (the status line and headers). */
  head(): string;
  closed(): Promise<number>;
}

function stalledClient(port: number, key: string = KEYS.good, localAddress = '127.0.0.1') {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  const started = Date.now();
  let received = '';
  const closed = new Promise<number>((resolve) => {
    socket.on('close', () => resolve(Date.now() - started));
  });
  socket.on('error', () => {});
  socket.once('data', (chunk: Buffer) => {
    received = chunk.toString('latin1', 0, Math.min(chunk.length, 2000));
    socket.pause(); // from here on nothing is read
  });
  const headers = Object.entries(auth(key))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`GET /tiles/${TS}.pmtiles HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`);
  return { socket, head: () => received, closed: () => closed } satisfies StalledClient;
}

/** File descriptors of this process open on `file`. */
async function descriptorsOn(file: string): Promise<number> {
  const entries = await fs.readdir('/proc/self/fd');
  let count = 0;
  for (const entry of entries) {
    const target = await fs.readlink(`/proc/self/fd/${entry}`).catch(() => '');
    if (target === file) count += 1;
  }
  return count;
}

async function metrics(replica: Replica) {
  const text = await scrape(replica.running.adminPort);
  const total = (name: string, labels: Record<string, string>) => sample(text, name, labels) ?? 0;
  return {
    clientGone: total('radar_http_requests_total', {
      route: '/tiles/:timestamp.pmtiles',
      method: 'GET',
      status: '499',
    }),
    storeUnavailable: total('radar_object_store_errors_total', {
      operation: 'get_range',
      kind: 'unavailable',
    }),
    refusedKey: total('radar_object_store_reads_refused_total', { reason: 'key' }),
    refusedClient: total('radar_object_store_reads_refused_total', { reason: 'client' }),
    breakerOpen: total('radar_object_store_breaker_open', {}),
  };
}

/**
 * Error-level lines of the request path. The replica's in-process ingest lists the same small
 * local S3 endpoint, which can drop a listing connection under this load; that pass is retried
 * and says nothing about how a departing client is accounted, so its lines are left out.
 */
function errorLines(replica: Replica) {
  return replica.logs.filter(
    (line) => line.level >= 50 && (line as { component?: string }).component !== 'ingest',
  );
}

describe.each(['dir', 's3'] as const)('slow readers, %s mode', (mode) => {
  let s3: S3TestServer | undefined;
  /** Between the replica and the S3 endpoint, to make the store slow on demand. */
  let proxy: FaultProxy | undefined;
  let replica: Replica;

  beforeAll(async () => {
    if (mode === 's3') {
      s3 = await startS3();
      proxy = await startFaultProxy(s3.endpoint);
    }
    replica = await startReplica(mode, s3, proxy);
  });
  afterAll(async () => {
    await replica?.stop();
    await proxy?.stop();
    await s3?.stop();
  });

  it('a response whose client stops reading is cut after the send timeout, releasing its file or store request', async () => {
    const port = replica.running.port;
    const opened = Date.now();
    // Within every share: PER_CLIENT addresses' worth, spread over loopback addresses.
    const clients = Array.from({ length: PER_CLIENT }, (_, i) =>
      stalledClient(port, KEYS.good, `127.0.0.${2 + i}`),
    );
    await waitFor(
      () => clients.every((c) => c.head() !== ''),
      20_000,
      'every response started',
      50,
    );
    for (const client of clients) expect(client.head()).toMatch(/^HTTP\/1\.1 200 /);
    if (replica.archivePath) {
      expect(await descriptorsOn(replica.archivePath)).toBeGreaterThanOrEqual(clients.length);
    }
    // Meanwhile an ordinary client is served.
    const ok = await request(`http://127.0.0.1:${port}`, `/tiles/${TS}.pmtiles`, {
      headers: { ...auth(), Range: 'bytes=0-16383' },
    });
    expect(ok.status).toBe(206);

    // A paused socket cannot see its connection end, so the cut is observed at the replica
    // (the 499s of the request metrics), then confirmed by reading what the client got.
    const before = await metrics(replica);
    const started = Date.now();
    const cutMs = await waitFor(
      async () => (await metrics(replica)).clientGone - before.clientGone >= clients.length,
      CUT_BOUND_MS,
      'stalled responses cut',
      50,
    );
    const stalledFor = Date.now() - opened;
    expect(stalledFor).toBeGreaterThanOrEqual(SEND_TIMEOUT_S * 1000 - 100);
    expect(Date.now() - started).toBeLessThan(CUT_BOUND_MS);
    const received = await Promise.all(
      clients.map(async (c) => {
        let bytes = 0;
        c.socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
        c.socket.resume();
        await c.closed();
        return bytes;
      }),
    );
    for (const bytes of received) expect(bytes).toBeLessThan(ARCHIVE_BYTES);
    if (replica.archivePath) {
      const file = replica.archivePath;
      await waitFor(
        async () => (await descriptorsOn(file)) === 0,
        20_000,
        'descriptors closed',
        50,
      );
    }
    if (s3?.upstream) {
      const upstream = s3.upstream;
      await waitFor(() => upstream.inFlight() === 0, 20_000, 'store requests closed', 50);
    }
    const after = await metrics(replica);
    expect(after.clientGone).toBeGreaterThanOrEqual(clients.length);
    expect(after.storeUnavailable).toBe(0);
    expect(errorLines(replica)).toEqual([]);
    process.stdout.write(
      `slow readers (${mode}): ${clients.length} stalled clients cut within ${cutMs} ms of the check (${stalledFor} ms; send timeout ${SEND_TIMEOUT_S} s)\n`,
    );
  });

  it('one key and one address hold at most their share of open store reads; others are served', async () => {
    const port = replica.running.port;
    // One address: its share is PER_CLIENT; the next read from it is refused.
    const sameAddress = Array.from({ length: PER_CLIENT }, () =>
      stalledClient(port, KEYS.good, '127.0.0.20'),
    );
    await waitFor(
      () => sameAddress.every((c) => c.head() !== ''),
      20_000,
      'address share taken',
      50,
    );
    const overAddress = await request(`http://127.0.0.1:${port}`, `/tiles/${TS}.pmtiles`, {
      headers: auth(),
      localAddress: '127.0.0.20',
    });
    expect(overAddress.status).toBe(503);
    expect(overAddress.headers['retry-after']).toBe('1');
    expect(overAddress.json()).toEqual({ error: { code: 503, message: 'Service Unavailable' } });

    // One key over many addresses: its share is PER_KEY.
    const sameKey = Array.from({ length: PER_KEY - PER_CLIENT }, (_, i) =>
      stalledClient(port, KEYS.good, `127.0.0.${30 + i}`),
    );
    await waitFor(() => sameKey.every((c) => c.head() !== ''), 20_000, 'key share taken', 50);
    const overKey = await request(`http://127.0.0.1:${port}`, `/tiles/${TS}.pmtiles`, {
      headers: auth(),
      localAddress: '127.0.0.40',
    });
    expect(overKey.status).toBe(503);
    expect(overKey.headers['retry-after']).toBe('1');

    // Another key from a fresh address is served in full.
    const other = await request(`http://127.0.0.1:${port}`, `/tiles/${TS}.pmtiles`, {
      headers: { ...auth(KEYS.limited), Range: 'bytes=1000-200000' },
      localAddress: '127.0.0.41',
    });
    expect(other.status).toBe(206);
    expect(other.body.length).toBe(199_001);

    const refused = await metrics(replica);
    expect(refused.refusedKey).toBeGreaterThanOrEqual(1);
    expect(refused.refusedClient).toBeGreaterThanOrEqual(1);
    expect(refused.breakerOpen).toBe(0);
    for (const c of [...sameAddress, ...sameKey]) c.socket.destroy();
    // Once they are gone the shares are free again.
    await waitFor(
      async () => {
        const res = await request(`http://127.0.0.1:${port}`, `/tiles/${TS}.pmtiles`, {
          headers: { ...auth(), Range: 'bytes=0-300000' },
          localAddress: '127.0.0.20',
        });
        return res.status === 206;
      },
      20_000,
      'shares released',
      50,
    );
  });

  it('clients that leave mid-download are counted as 499, never as store errors or error logs', async () => {
    const port = replica.running.port;
    const before = await metrics(replica);
    const leavers = 8;
    for (let i = 0; i < leavers; i++) {
      await new Promise<void>((resolve) => {
        const socket = net.connect({ port, host: '127.0.0.1' });
        let received = 0;
        socket.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > 512 * 1024) socket.destroy();
        });
        socket.on('error', () => {});
        socket.on('close', () => resolve());
        const headers = Object.entries(auth())
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('');
        socket.write(`GET /tiles/${TS}.pmtiles HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`);
      });
    }
    // And clients that leave while the store has not answered yet (S3: a store that hangs).
    let early = 0;
    if (proxy) {
      proxy.setMode('hang');
      early = 4;
      await Promise.all(
        Array.from({ length: early }, async () => {
          const socket = net.connect({ port, host: '127.0.0.1' });
          socket.on('error', () => {});
          const headers = Object.entries(auth())
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join('');
          socket.write(
            `GET /tiles/${TS}.pmtiles HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=1000000-2999999\r\n${headers}\r\n`,
          );
          // Past the block cache (a 2 MB window streams from the store), and the client leaves
          // before the store's first-byte limit.
          await new Promise((r) => setTimeout(r, 300));
          socket.destroy();
        }),
      );
      proxy.setMode('pass');
    }
    await waitFor(
      async () => {
        const now = await metrics(replica);
        return now.clientGone - before.clientGone >= leavers + early;
      },
      20_000,
      '499s recorded',
      50,
    );
    const after = await metrics(replica);
    expect(after.storeUnavailable).toBe(before.storeUnavailable);
    expect(errorLines(replica)).toEqual([]);
    expect(after.breakerOpen).toBe(0);
  });
});
