/**
 * A real S3 endpoint for integration tests: MinIO in a container when a container runtime
 * answers (and testcontainers can load), otherwise an in-process s3rver on a free loopback
 * port with a temporary directory. Either way tests speak S3 over HTTP to it; nothing is
 * mocked. The choice is `container-runtime.ts`'s (`RADAR_TEST_BACKEND=local|container` forces it).
 *
 * The local backend also counts what happens on the server side (requests, responses cut
 * before they finished, open connections) so a test can see that an upstream request was
 * really closed. s3rver 3.7.1 gaps, which the service must not depend on: `bytes=0-0` and
 * suffix ranges are answered wrongly, `If-None-Match` on PUT is ignored, a ranged read of an
 * empty object never completes, no bucket notifications, no SigV4 verification (but the
 * access key must be its built-in `S3RVER`).
 *
 * Also here: `startFaultProxy`, a TCP proxy in front of the endpoint that can pass, hang or
 * refuse connections, to test timeouts and the circuit breaker against a real server.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'minio';
import { startLocalS3 } from '../../tools/stack/local-s3';
import { chooseBackend, loadedTestcontainers } from './container-runtime';

/** Server-side observations (local backend only). */
export interface UpstreamCounters {
  /** Requests received. */
  requests(): number;
  /** Responses neither finished nor closed yet. */
  inFlight(): number;
  /** Responses closed before they finished: the client went away mid-response. */
  abortedResponses(): number;
  /** TCP connections currently open. */
  openConnections(): number;
}

export interface S3TestServer {
  readonly backend: 'container' | 'local';
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly bucket: string;
  readonly region: string;
  /** Uploads an object with a plain client (not the code under test). */
  put(key: string, bytes: Buffer): Promise<void>;
  /** Present on the local backend; undefined for a container. */
  readonly upstream: UpstreamCounters | undefined;
  stop(): Promise<void>;
}

const BUCKET = 'radar-test';
const REGION = 'us-east-1';

function plainClient(endpoint: string, accessKey: string, secretKey: string): Client {
  const url = new URL(endpoint);
  return new Client({
    endPoint: url.hostname,
    port: Number(url.port),
    useSSL: false,
    accessKey,
    secretKey,
    region: REGION,
    pathStyle: true,
  });
}

async function startContainer(): Promise<S3TestServer> {
  const tc = loadedTestcontainers();
  const accessKey = 'radar-test';
  const secretKey = 'radar-test-secret';
  const container = await new tc.GenericContainer(
    'quay.io/minio/minio:RELEASE.2025-09-07T16-13-09Z',
  )
    .withCommand(['server', '/data'])
    .withEnvironment({ MINIO_ROOT_USER: accessKey, MINIO_ROOT_PASSWORD: secretKey })
    .withExposedPorts(9000)
    .withWaitStrategy(tc.Wait.forHttp('/minio/health/live', 9000))
    .withStartupTimeout(120_000)
    .start();
  const endpoint = `http://${container.getHost()}:${container.getMappedPort(9000)}`;
  const client = plainClient(endpoint, accessKey, secretKey);
  await client.makeBucket(BUCKET, REGION);
  return {
    backend: 'container',
    endpoint,
    accessKey,
    secretKey,
    bucket: BUCKET,
    region: REGION,
    put: async (key, bytes) => void (await client.putObject(BUCKET, key, bytes, bytes.length)),
    upstream: undefined,
    stop: async () => void (await container.stop()),
  };
}

async function startLocal(): Promise<S3TestServer> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-s3rver-'));
  const local = await startLocalS3({ directory, bucket: BUCKET });
  const httpServer = local.httpServer;

  let requests = 0;
  let inFlight = 0;
  let aborted = 0;
  const sockets = new Set<net.Socket>();
  httpServer.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  httpServer.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    requests += 1;
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (!res.writableFinished) aborted += 1;
    });
  });

  const { endpoint, accessKey, secretKey } = local;
  const client = plainClient(endpoint, accessKey, secretKey);
  return {
    backend: 'local',
    endpoint,
    accessKey,
    secretKey,
    bucket: BUCKET,
    region: REGION,
    put: async (key, bytes) => void (await client.putObject(BUCKET, key, bytes, bytes.length)),
    upstream: {
      requests: () => requests,
      inFlight: () => inFlight,
      abortedResponses: () => aborted,
      openConnections: () => sockets.size,
    },
    async stop() {
      await local.stop();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Starts the S3 endpoint for a test file (call `stop()` in `afterAll`). The backend follows
 * `chooseBackend()`, shared with the Redis harness, and is logged once with its reason.
 */
export async function startS3(): Promise<S3TestServer> {
  const choice = await chooseBackend();
  process.stdout.write(`s3 harness: ${choice.backend} (${choice.reason})\n`);
  return choice.backend === 'container' ? startContainer() : startLocal();
}

/** Connection behaviour of the fault proxy. */
export type FaultMode = 'pass' | 'hang' | 'refuse';

export interface FaultProxy {
  /** `http://127.0.0.1:{port}`: use as the S3 endpoint. */
  readonly endpoint: string;
  /** Switches behaviour; open connections are cut so pooled sockets cannot bypass it. */
  setMode(mode: FaultMode): void;
  stop(): Promise<void>;
}

/**
 * A TCP proxy to `target`: `pass` forwards, `hang` accepts and never answers (a store that
 * stopped responding), `refuse` resets every connection at once (a store that is down).
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let mode: FaultMode = 'pass';
  const open = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => {});
  };
  const server = net.createServer((socket) => {
    track(socket);
    if (mode === 'refuse') return void socket.resetAndDestroy();
    if (mode === 'hang') return void socket.resume();
    const out = net.connect(Number(upstream.port), upstream.hostname);
    track(out);
    socket.pipe(out).pipe(socket);
    out.once('close', () => socket.destroy());
    socket.once('close', () => out.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    setMode(next) {
      mode = next;
      for (const socket of open) socket.destroy();
    },
    async stop() {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
