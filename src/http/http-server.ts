/**
 * The public listener for a Koa app: Node's timeouts set around nginx's (idle upstream sockets
 * are closed by nginx first, so they never produce 502s), slow clients cut off, and requests
 * the parser or Node itself would answer bare (parser errors, `Expect`, `CONNECT`) answered
 * with the error record instead. Used by replicas and tests alike.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import { MethodNotAllowedError } from '../errors';
import type { FastPath } from './fast-path';
import { onClientError, rawErrorResponse } from './client-error';
import { createSendWatchdog, watchResponses } from './send-watchdog';

/** Above nginx's upstream keepalive_timeout (60 s), so idle upstream sockets never 502. */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Default longest time a client may take to send a whole request (headers only here). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Default longest time a response may make no write progress (`RADAR_SEND_TIMEOUT_S`). */
export const SEND_TIMEOUT_MS = 30_000;

export interface HttpServerOptions {
  /** `RADAR_REQUEST_TIMEOUT_S` × 1000; slow or idle senders are cut off after it. */
  readonly requestTimeoutMs?: number;
  /** `RADAR_SEND_TIMEOUT_S` × 1000; responses whose client stops reading are cut after it. */
  readonly sendTimeoutMs?: number;
  /** Answers what it can before the Koa app (`http/fast-path.ts`); absent: Koa answers all. */
  readonly fastPath?: FastPath;
}

export function createHttpServer(app: Koa, options: HttpServerOptions = {}): http.Server {
  const requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const koa = app.callback();
  const fastPath = options.fastPath;
  const handler = fastPath
    ? (req: http.IncomingMessage, res: http.ServerResponse) => fastPath(req, res, koa)
    : koa;
  const server = http.createServer(
    {
      // Host is checked by protocolGuard, so the answer is an error record, not Node's bare 400.
      requireHostHeader: false,
      // Node enforces request timeouts on this interval (30 s by default, which would let a
      // slow client hold a socket for up to twice the timeout).
      connectionsCheckingInterval: Math.min(1000, requestTimeoutMs),
    },
    handler,
  );
  // Registered after the app's listener: every response is watched from its first moment.
  const watchdog = createSendWatchdog({ timeoutMs: options.sendTimeoutMs ?? SEND_TIMEOUT_MS });
  server.on('request', watchResponses(watchdog));
  server.on('close', () => watchdog.close());
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = Math.min(KEEP_ALIVE_TIMEOUT_MS + 1_000, requestTimeoutMs);
  server.requestTimeout = requestTimeoutMs;
  server.on('clientError', onClientError);
  // An unmet `Expect` is ignored (RFC 9110 §10.1.1 allows it): the request is answered normally.
  server.on('checkExpectation', koa);
  // No tunnels: CONNECT gets a 405 record instead of a silently closed connection.
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
    socket.end(rawErrorResponse(new MethodNotAllowedError('GET, HEAD, OPTIONS')));
  });
  return server;
}
