/**
 * The S3/MinIO client shared by the S3 adapters: a minio `Client` on a keep-alive agent with
 * path-style addressing, retries off (the service decides what to retry) and a bounded idle
 * time on every request, so no S3 call can hang a replica or leak a socket. minio does not
 * expose its requests, so a per-call scope (AsyncLocalStorage) hands each adapter the
 * `ClientRequest` it started, which is what lets a client disconnect destroy the upstream.
 * The scope is enabled only while a scoped call runs: an enabled AsyncLocalStorage installs
 * Node 20's promise hooks for the whole process, which cost every request of a replica
 * (every promise of the HTTP pipeline) about 5 % of its CPU for a store probe every 10 s.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import https from 'node:https';
import { Client, type ClientOptions } from 'minio';
import { archiveFileName } from '../../domain/timestamps';

/** Connection settings, the shape of `Config['s3']`. */
export interface S3Settings {
  /** `http(s)://host[:port]`, no path. */
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly region: string;
}

/** Per-call options applied to every request started inside `S3Client.withRequestScope`. */
export interface S3RequestScope {
  /** Receives each request as it starts, so the caller can destroy it (abort, deadline). */
  readonly onRequest?: (request: http.ClientRequest) => void;
  /** Socket idle limit for these requests, replacing the client default. */
  readonly idleTimeoutMs?: number;
}

/** The minio client plus the per-request control the adapters need. */
export interface S3Client {
  readonly minio: Client;
  /**
   * The keep-alive pool every request of this client uses; plain (presigned) reads go through
   * it with `transport.request`, so they share sockets and limits with minio's calls.
   */
  readonly agent: http.Agent;
  /** `node:http` or `node:https`, matching the endpoint. */
  readonly transport: Pick<typeof http, 'request'>;
  /** Default idle limit of every request (connect, first byte, gaps in a body). */
  readonly timeoutMs: number;
  /** Runs `fn`; every S3 request it starts is bound to `scope`. */
  withRequestScope<T>(scope: S3RequestScope, fn: () => Promise<T>): Promise<T>;
  /** Sockets held by the keep-alive agent, in use and idle; for tests and metrics. */
  sockets(): { readonly busy: number; readonly idle: number };
  /** Destroys every pooled socket. Idempotent; the client must not be used afterwards. */
  close(): void;
}

/** Raised (as a request's destroy reason) when a request stays idle past its limit. */
export class S3TimeoutError extends Error {
  readonly code = 'S3Timeout';
  constructor(readonly timeoutMs: number) {
    super(`S3 request idle for ${timeoutMs} ms`);
    this.name = 'S3TimeoutError';
  }
}

/**
 * Pooled sockets are dropped after this much idleness, below the usual 5 s server keep-alive,
 * so a request is never written into a connection the server is closing.
 */
const FREE_SOCKET_TIMEOUT_MS = 4_000;

function countSockets(pool: NodeJS.ReadOnlyDict<unknown[]>): number {
  return Object.values(pool).reduce((sum, list) => sum + (list?.length ?? 0), 0);
}

/**
 * Creates the client for `settings`. `timeoutMs` bounds how long any request may sit idle
 * (no connection, no first byte, a stalled body) before it is destroyed with `S3TimeoutError`.
 */
export function createS3Client(
  settings: S3Settings,
  options: { timeoutMs: number; maxSockets?: number },
): S3Client {
  const url = new URL(settings.endpoint);
  if (url.pathname !== '/' || url.search !== '') {
    throw new Error(`S3 endpoint must not have a path or query: ${settings.endpoint}`);
  }
  const useSSL = url.protocol === 'https:';
  const base = useSSL ? https : http;
  const agent = new base.Agent({
    keepAlive: true,
    maxSockets: options.maxSockets ?? 256,
    maxFreeSockets: 64,
    scheduling: 'lifo',
    timeout: FREE_SOCKET_TIMEOUT_MS,
  });
  const scopes = new AsyncLocalStorage<S3RequestScope>();
  /** Scoped calls in flight; `scopes` is disabled whenever this drops to 0. */
  let active = 0;

  const request = (
    requestOptions: http.RequestOptions,
    callback?: (response: http.IncomingMessage) => void,
  ): http.ClientRequest => {
    const scope = scopes.getStore();
    const req = base.request(requestOptions, callback);
    // The limit may be changed later with `req.setTimeout(ms)` (a body may idle longer).
    req.setTimeout(scope?.idleTimeoutMs ?? options.timeoutMs);
    req.on('timeout', () =>
      req.destroy(new S3TimeoutError((req as { timeout?: number }).timeout ?? 0)),
    );
    scope?.onRequest?.(req);
    return req;
  };

  const minio = new Client({
    endPoint: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? undefined : Number(url.port),
    useSSL,
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    region: settings.region,
    pathStyle: true,
    transportAgent: agent,
    transport: { request } as unknown as NonNullable<ClientOptions['transport']>,
    // A retry inside minio would hide failures from the circuit breaker and double latency.
    retryOptions: { disableRetry: true },
  });

  let closed = false;
  return {
    minio,
    agent,
    transport: base,
    timeoutMs: options.timeoutMs,
    async withRequestScope(scope, fn) {
      active++;
      try {
        return await scopes.run(scope, fn);
      } finally {
        // The last scoped call to finish takes the process-wide promise hooks away again.
        if (--active === 0) scopes.disable();
      }
    },
    sockets: () => ({ busy: countSockets(agent.sockets), idle: countSockets(agent.freeSockets) }),
    close() {
      if (closed) return;
      closed = true;
      agent.destroy();
    },
  };
}

/** Object key of a timestamp's archive: `{prefix}{YYYYMMDDHHmm}.pmtiles` (`S3_PREFIX`). */
export function objectKey(prefix: string, timestamp: string): string {
  return `${prefix}${archiveFileName(timestamp)}`;
}
