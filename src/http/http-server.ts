/**
 * The public listener for a Koa app: Node's timeouts set around nginx's (idle upstream sockets
 * are closed by nginx first, so they never produce 502s), slow clients cut off, and requests
 * the parser rejects answered with the error record. Used by replicas and tests alike.
 */
import http from 'node:http';
import type Koa from 'koa';
import { onClientError } from './client-error';

/** Above nginx's upstream keepalive_timeout (60 s), so idle upstream sockets never 502. */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Longest time a client may take to send a whole request (read-only API: headers only). */
export const REQUEST_TIMEOUT_MS = 30_000;

export function createHttpServer(app: Koa): http.Server {
  // Host is checked by protocolGuard, so the answer is an error record rather than Node's bare 400.
  const server = http.createServer({ requireHostHeader: false }, app.callback());
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.on('clientError', onClientError);
  return server;
}
