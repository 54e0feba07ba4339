/**
 * The S3 archive store against a real S3 endpoint (MinIO container or in-process s3rver, see
 * the harness): exact bytes for every window, error mapping, timeouts and the circuit breaker
 * behind a fault proxy, and upstream release when the client goes away.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import Koa from 'koa';
import {
  BUFFERED_WINDOW_BYTES,
  createS3ArchiveStore,
  type S3ArchiveStore,
} from '../../src/adapters/s3/archive-store';
import { createS3Client, objectKey, type S3Client } from '../../src/adapters/s3/client';
import { UpstreamTruncatedError } from '../../src/adapters/s3/window-stream';
import {
  ArchiveNotFoundError,
  ArchiveObjectError,
  ClientGoneError,
  StoreBusyError,
  StoreUnavailableError,
} from '../../src/domain/archive-errors';
import type { ArchiveBody, ArchiveMeta, ByteWindow } from '../../src/domain/ports';
import { createSilentLogger } from '../../src/logger';
import { buildArchive } from '../fixtures/archives';
import { reportFigure, waitFor } from '../harness/wait';
import { startFaultProxy, startS3, type FaultProxy, type S3TestServer } from '../harness/s3-server';

jest.setTimeout(30_000);

const PREFIX = 'conus/';
const TS = '202405061200';
const LARGE_TS = '202405061202';

let s3: S3TestServer;
let client: S3Client;
let store: S3ArchiveStore;
let archive: Buffer;
let meta: ArchiveMeta;
/** Larger than every socket buffer on the way, so an upstream cannot finish by itself. */
let large: Buffer;
let largeMeta: ArchiveMeta;

const md5Etag = (bytes: Buffer) => `"${createHash('md5').update(bytes).digest('hex')}"`;
const never = new AbortController().signal;

async function readAll(body: ArchiveBody): Promise<Buffer> {
  if (Buffer.isBuffer(body)) return body;
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A window larger than `BUFFERED_WINDOW_BYTES` streams. */
function asStream(body: ArchiveBody): Readable {
  if (Buffer.isBuffer(body)) throw new Error('expected a stream');
  return body;
}

function settings(endpoint: string) {
  return { endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, region: s3.region };
}

beforeAll(async () => {
  s3 = await startS3();
  archive = buildArchive(TS);
  await s3.put(objectKey(PREFIX, TS), archive);
  meta = { timestamp: TS, size: archive.length, etag: md5Etag(archive), lastModified: new Date() };
  large = Buffer.alloc(24 << 20);
  for (let i = 0; i < large.length; i += 4096) large.writeUInt32LE(i, i);
  await s3.put(objectKey(PREFIX, LARGE_TS), large);
  largeMeta = {
    timestamp: LARGE_TS,
    size: large.length,
    etag: md5Etag(large),
    lastModified: new Date(),
  };
  client = createS3Client(settings(s3.endpoint), { timeoutMs: 2000 });
  store = createS3ArchiveStore({
    client,
    bucket: s3.bucket,
    prefix: PREFIX,
    timeoutMs: 2000,
    logger: createSilentLogger(),
  });
});

afterAll(async () => {
  await store?.close();
  await s3?.stop();
});

describe('S3 archive store: bytes', () => {
  it('serves every window byte-identical to the object, including those s3rver gets wrong', async () => {
    const size = archive.length;
    const windows: ByteWindow[] = [
      { offset: 0, length: 1 }, // bytes=0-0: s3rver answers with the whole object
      { offset: 1, length: 1 },
      { offset: size - 1, length: 1 },
      { offset: 0, length: 16384 },
      { offset: Math.floor(size / 2), length: 777 },
      { offset: size - 4096, length: 4096 },
      { offset: 0, length: size },
      { offset: 127, length: size - 127 },
    ];
    for (let i = 0; i < 12; i++) {
      const offset = (i * 7919) % (size - 1);
      windows.push({ offset, length: Math.min(size - offset, 1 + ((i * 104729) % 9000)) });
    }
    for (const window of windows) {
      const bytes = await readAll(await store.openRange(meta, window, never));
      expect({
        window,
        equal: bytes.equals(archive.subarray(window.offset, window.offset + window.length)),
      }).toEqual({
        window,
        equal: true,
      });
    }
    // Windows past BUFFERED_WINDOW_BYTES stream; smaller ones come back as one Buffer.
    const streamed: ByteWindow[] = [
      { offset: 0, length: BUFFERED_WINDOW_BYTES + 1 },
      { offset: 12345, length: 3 * BUFFERED_WINDOW_BYTES },
      { offset: large.length - BUFFERED_WINDOW_BYTES - 7, length: BUFFERED_WINDOW_BYTES + 7 },
    ];
    for (const window of streamed) {
      const body = asStream(await store.openRange(largeMeta, window, never));
      const bytes = await readAll(body);
      expect(bytes.equals(large.subarray(window.offset, window.offset + window.length))).toBe(true);
    }
    const small = await store.openRange(
      largeMeta,
      { offset: 5, length: BUFFERED_WINDOW_BYTES },
      never,
    );
    expect(Buffer.isBuffer(small)).toBe(true);
    expect(client.sockets().busy).toBe(0);
  });

  it('maps a missing object to ArchiveNotFoundError', async () => {
    const missing = { ...meta, timestamp: '202405061158' };
    await expect(
      store.openRange(missing, { offset: 0, length: 100 }, never),
    ).rejects.toBeInstanceOf(ArchiveNotFoundError);
  });

  it('refuses to send bytes of an object that does not match the catalog, without blaming the store', async () => {
    const wrongSize = { ...meta, size: meta.size + 10 };
    const wrongEtag = { ...meta, etag: '"0123456789abcdef0123456789abcdef"' };
    const beyond = { offset: meta.size - 10, length: 20 }; // the catalog says more bytes than exist
    const reasons: string[] = [];
    // Far more mismatches than the breaker threshold (5): they are facts about one object.
    for (let i = 0; i < 4; i++) {
      for (const [m, w] of [
        [wrongSize, { offset: 0, length: 100 }],
        [wrongEtag, { offset: 0, length: 100 }],
        [wrongSize, beyond],
      ] as const) {
        const error = await store.openRange(m, w, never).catch((err: unknown) => err);
        expect(error).toBeInstanceOf(ArchiveObjectError);
        reasons.push((error as ArchiveObjectError).reason);
      }
    }
    expect(new Set(reasons)).toEqual(new Set(['size', 'etag']));
    expect(store.breakerOpen()).toBe(false);
    const bytes = await readAll(await store.openRange(meta, { offset: 0, length: 10 }, never));
    expect(bytes.equals(archive.subarray(0, 10))).toBe(true);
    expect(client.sockets().busy).toBe(0);
  });

  it('an object replaced under its published timestamp is refused by reason; other archives stay readable', async () => {
    const replacedTs = '202405061204';
    const original = buildArchive(replacedTs);
    await s3.put(objectKey(PREFIX, replacedTs), original);
    const published: ArchiveMeta = {
      timestamp: replacedTs,
      size: original.length,
      etag: md5Etag(original),
      lastModified: new Date(),
    };
    await readAll(await store.openRange(published, { offset: 0, length: 100 }, never));
    // Another archive's bytes (different ETag and size) under the same name.
    await s3.put(objectKey(PREFIX, replacedTs), large.subarray(0, original.length + 4096));
    for (let i = 0; i < 12; i++) {
      const error = await store
        .openRange(published, { offset: i * 100, length: 100 }, never)
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(ArchiveObjectError);
    }
    expect(store.breakerOpen()).toBe(false);
    const other = await readAll(await store.openRange(meta, { offset: 500, length: 700 }, never));
    expect(other.equals(archive.subarray(500, 1200))).toBe(true);
  });

  it('answers probe() while the bucket exists', async () => {
    await expect(store.probe()).resolves.toBeUndefined();
  });
});

describe('S3 archive store: failing store', () => {
  let proxy: FaultProxy;
  let faultyClient: S3Client;
  let faulty: S3ArchiveStore;
  // Wide enough apart that an event-loop stall on a loaded machine cannot blur "answered by the
  // breaker" (fast) and "waited out the timeout", nor let the breaker cool down mid-test.
  const timeoutMs = 1000;
  const cooldownMs = 2000;

  beforeAll(async () => {
    proxy = await startFaultProxy(s3.endpoint);
    faultyClient = createS3Client(settings(proxy.endpoint), { timeoutMs });
    faulty = createS3ArchiveStore({
      client: faultyClient,
      bucket: s3.bucket,
      prefix: PREFIX,
      timeoutMs,
      logger: createSilentLogger(),
      breakerThreshold: 3,
      breakerCooldownMs: cooldownMs,
    });
  });

  afterAll(async () => {
    await faulty?.close();
    await proxy?.stop();
  });

  beforeEach(() => proxy.setMode('pass'));

  async function timed(run: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
    const started = Date.now();
    try {
      await run();
      return { error: undefined, ms: Date.now() - started };
    } catch (error) {
      return { error, ms: Date.now() - started };
    }
  }

  it('a store that stops answering gives 503 within the timeout, then the breaker fails fast and recovers', async () => {
    await readAll(await faulty.openRange(meta, { offset: 0, length: 100 }, never));
    proxy.setMode('hang');
    for (let i = 0; i < 3; i++) {
      const { error, ms } = await timed(() =>
        faulty.openRange(meta, { offset: 0, length: 100 }, never),
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(ms).toBeGreaterThanOrEqual(timeoutMs - 20);
      expect(ms).toBeLessThan(timeoutMs + 1500);
    }
    expect(faulty.breakerOpen()).toBe(true);
    // The timed-out requests were destroyed, not left hanging on the agent.
    await waitFor(() => faultyClient.sockets().busy === 0, 5000);

    const fast = await timed(() => faulty.openRange(meta, { offset: 0, length: 100 }, never));
    expect(fast.error).toBeInstanceOf(StoreUnavailableError);
    // Answered by the breaker, not after waiting on the store (wide bound; figure reported).
    expect(fast.ms).toBeLessThan(timeoutMs);
    reportFigure('breaker fast-fail', fast.ms);
    expect((fast.error as Error).message).toMatch(/circuit breaker/);
    // Logged once when the breaker opened: the request path must not log it again.
    expect((fast.error as StoreUnavailableError).alreadyReported).toBe(true);
    // It says when the breaker tries the store next (the 503's Retry-After).
    const retryAfterS = (fast.error as StoreUnavailableError).retryAfterS!;
    expect(retryAfterS).toBeGreaterThan(0);
    expect(retryAfterS).toBeLessThanOrEqual(cooldownMs / 1000);

    proxy.setMode('pass');
    // The breaker's own probe finds the store back within a cool-down; no client is the trial.
    await waitFor(() => !faulty.breakerOpen(), cooldownMs + 2000);
    const bytes = await readAll(await faulty.openRange(meta, { offset: 10, length: 100 }, never));
    expect(bytes.equals(archive.subarray(10, 110))).toBe(true);
    expect(faulty.breakerOpen()).toBe(false);
  });

  it('a refused connection gives 503 at once and probe() rejects', async () => {
    proxy.setMode('refuse');
    const { error, ms } = await timed(() =>
      faulty.openRange(meta, { offset: 0, length: 100 }, never),
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    // A store failure the request path logs (sampled); the connection error is the cause.
    expect((error as StoreUnavailableError).alreadyReported).toBe(false);
    expect((error as Error).cause).toMatchObject({ message: expect.stringMatching(/./) });
    expect(ms).toBeLessThan(timeoutMs + 1000);
    await expect(faulty.probe()).rejects.toBeDefined();
  });

  it('a client that leaves while the store is silent releases the upstream request at once', async () => {
    proxy.setMode('hang');
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const { error, ms } = await timed(() =>
      faulty.openRange(meta, { offset: 0, length: 100 }, abort.signal),
    );
    expect(error).toBeInstanceOf(ClientGoneError);
    expect(ms).toBeLessThan(timeoutMs);
    expect(faulty.breakerOpen()).toBe(false);
    await waitFor(() => faultyClient.sockets().busy === 0, 5000);
  });
  it('a store that breaks off mid-body makes the stream fail, never end short', async () => {
    const stream = asStream(
      await faulty.openRange(largeMeta, { offset: 0, length: large.length }, never),
    );
    let received = 0;
    const outcome = new Promise<unknown>((resolve) => {
      stream.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > 256 * 1024) proxy.setMode('refuse'); // cuts the live connection
      });
      stream.on('end', () => resolve('ended'));
      stream.on('error', resolve);
    });
    expect(await outcome).toBeInstanceOf(UpstreamTruncatedError);
    expect(received).toBeLessThan(large.length);
    await waitFor(() => faultyClient.sockets().busy === 0, 5000);
  });
});

describe('S3 archive store: client disconnect mid-download', () => {
  let large: Buffer;
  let largeMeta: ArchiveMeta;

  beforeAll(async () => {
    // Larger than every socket buffer on the way, so the upstream cannot finish by itself.
    large = Buffer.alloc(24 << 20);
    for (let i = 0; i < large.length; i += 4096) large.writeUInt32LE(i, i);
    await s3.put(objectKey(PREFIX, LARGE_TS), large);
    largeMeta = {
      timestamp: LARGE_TS,
      size: large.length,
      etag: md5Etag(large),
      lastModified: new Date(),
    };
  });

  it('via the abort signal: the stream and the upstream request are destroyed', async () => {
    const abortedBefore = s3.upstream?.abortedResponses() ?? 0;
    const abort = new AbortController();
    const stream = asStream(
      await store.openRange(largeMeta, { offset: 0, length: large.length }, abort.signal),
    );
    let received = 0;
    await new Promise<void>((resolve) => {
      stream.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > 256 * 1024 && !abort.signal.aborted) {
          abort.abort();
          resolve();
        }
      });
    });
    await waitFor(() => stream.destroyed && client.sockets().busy === 0, 5000);
    expect(received).toBeLessThan(large.length);
    if (s3.upstream) {
      const upstream = s3.upstream;
      await waitFor(
        () => upstream.inFlight() === 0 && upstream.abortedResponses() > abortedBefore,
        5000,
      );
    }
  });

  it('through a Koa server: the upstream request closes and no error response is attempted', async () => {
    const abortedBefore = s3.upstream?.abortedResponses() ?? 0;
    const errors: Array<{ headerSent: boolean }> = [];
    let serverResponse: http.ServerResponse | undefined;
    const app = new Koa();
    app.on('error', (err: { headerSent?: boolean }) =>
      errors.push({ headerSent: err.headerSent === true }),
    );
    app.use(async (ctx) => {
      serverResponse = ctx.res;
      const abort = new AbortController();
      ctx.res.once('close', () => abort.abort());
      ctx.body = await store.openRange(
        largeMeta,
        { offset: 0, length: large.length },
        abort.signal,
      );
      ctx.type = 'application/vnd.pmtiles';
      ctx.length = large.length;
    });
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const received = await new Promise<number>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
          expect(res.statusCode).toBe(200);
          expect(res.headers['content-length']).toBe(String(large.length));
          let count = 0;
          res.on('data', (chunk: Buffer) => {
            count += chunk.length;
            if (count > 512 * 1024) {
              req.destroy();
              resolve(count);
            }
          });
        });
        req.on('error', (err) => {
          if (!req.destroyed) reject(err);
        });
      });
      expect(received).toBeLessThan(large.length);
      await waitFor(() => serverResponse?.destroyed === true && client.sockets().busy === 0, 5000);
      expect(serverResponse!.writableFinished).toBe(false);
      if (s3.upstream) {
        const upstream = s3.upstream;
        await waitFor(
          () => upstream.inFlight() === 0 && upstream.abortedResponses() > abortedBefore,
          5000,
        );
      }
      expect(errors.every((e) => e.headerSent)).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('S3 archive store: waiting for a pooled socket', () => {
  let narrowClient: S3Client;
  let narrow: S3ArchiveStore;
  const timeoutMs = 400;
  const socketWaitMs = 1500;

  beforeAll(() => {
    // One socket: a reader that does not read holds the whole pool.
    narrowClient = createS3Client(settings(s3.endpoint), { timeoutMs, maxSockets: 1 });
    narrow = createS3ArchiveStore({
      client: narrowClient,
      bucket: s3.bucket,
      prefix: PREFIX,
      timeoutMs,
      socketWaitMs,
      logger: createSilentLogger(),
      breakerThreshold: 1,
    });
  });
  afterAll(() => narrow?.close());

  const holdPool = async () =>
    asStream(await narrow.openRange(largeMeta, { offset: 0, length: large.length }, never));

  it('time spent queueing for a socket is not first-byte time and never opens the breaker', async () => {
    const held = await holdPool(); // never read: keeps the only socket busy
    const started = Date.now();
    const queued = narrow.openRange(meta, { offset: 100, length: 200 }, never);
    // Far longer than the first-byte limit, shorter than the socket wait.
    await new Promise((r) => setTimeout(r, timeoutMs * 2));
    held.destroy();
    const bytes = await readAll(await queued);
    expect(bytes.equals(archive.subarray(100, 300))).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(timeoutMs * 2);
    expect(narrow.breakerOpen()).toBe(false);
  });

  it('a read that finds no free socket in time is refused as busy, not as a store failure', async () => {
    const held = await holdPool();
    try {
      const started = Date.now();
      const error = await narrow
        .openRange(meta, { offset: 0, length: 100 }, never)
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(StoreBusyError);
      expect((error as StoreBusyError).reason).toBe('socket-wait');
      expect(Date.now() - started).toBeGreaterThanOrEqual(socketWaitMs - 50);
      expect(narrow.breakerOpen()).toBe(false); // threshold 1: one failure would have opened it
    } finally {
      held.destroy();
    }
    await waitFor(() => narrowClient.sockets().busy === 0, 5000);
    const bytes = await readAll(await narrow.openRange(meta, { offset: 0, length: 100 }, never));
    expect(bytes.equals(archive.subarray(0, 100))).toBe(true);
  });
});
