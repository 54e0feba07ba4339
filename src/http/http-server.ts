/**
 * The public listener: every request, whatever event delivers it (`request`, or
 * `checkExpectation` for an `Expect` Node does not handle), goes to the core first; the answer
 * is written by the one answer writer, at once when the core decided synchronously, when its
 * promise settles otherwise. The core routes every path (unknown ones get its 404); a GET or
 * HEAD of a page goes to the Koa app, which serves the page and writes through the same writer. Every response is watched by the send timeout.
 * Node's timeouts are set around nginx's (idle upstream sockets are closed by nginx first, so
 * they never produce 502s), and requests the parser rejects (parser errors, `CONNECT`) get the
 * error record instead of Node's bare answers.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { MethodNotAllowedError } from '../errors';
import type { AnswerWriter } from './answer-writer';
import { onClientError, rawErrorResponse } from './client-error';
import { createConnectionDrain } from './connection-drain';
import type { Core } from './core/core';
import { ALLOWED_METHODS } from './core/route-table';
import { nodeRequest } from './node-request';
import { createSendWatchdog } from './send-watchdog';

/**
 * Above the balancer's upstream idle timeout (nginx.conf: 4 s), so the balancer always closes
 * an idle connection first and never sends on one the replica is closing.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Default idle time after which a draining replica closes a connection (`RADAR_DRAIN_IDLE_S`). */
export const DRAIN_IDLE_CLOSE_MS = 5_000;
/** Default longest time a client may take to send a whole request (headers only here). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Default longest time a response may make no write progress (`RADAR_SEND_TIMEOUT_S`). */
export const SEND_TIMEOUT_MS = 30_000;

export interface HttpServerDeps {
  readonly core: Core;
  readonly writer: AnswerWriter;
  /** The Koa app's request listener, for a GET or HEAD of a page (the core routed it). */
  readonly fallback: (req: http.IncomingMessage, res: http.ServerResponse) => unknown;
  readonly trustProxy: boolean;
  /** Reads the number of requests being answered at each metrics scrape. */
  readonly inFlight?: (read: () => number) => void;
  /** `RADAR_REQUEST_TIMEOUT_S` × 1000; slow or idle senders are cut off after it. */
  readonly requestTimeoutMs?: number;
  /** `RADAR_SEND_TIMEOUT_S` × 1000; responses whose client stops reading are cut after it. */
  readonly sendTimeoutMs?: number;
  /** `RADAR_DRAIN_IDLE_S` × 1000: during a drain, connections idle this long are closed. */
  readonly drainIdleCloseMs?: number;
}

/** The public listener and its graceful drain. */
export interface PublicServer {
  readonly server: http.Server;
  /** Stops accepting and closes every connection once safe (`connection-drain.ts`). */
  drain(deadlineMs: number): Promise<void>;
}

export function createHttpServer(deps: HttpServerDeps): PublicServer {
  const { core, writer, fallback, trustProxy } = deps;
  const requestTimeoutMs = deps.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const watchdog = createSendWatchdog({ timeoutMs: deps.sendTimeoutMs ?? SEND_TIMEOUT_MS });
  let inFlight = 0;
  deps.inFlight?.(() => inFlight);
  const settle = () => inFlight--;

  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const started = performance.now();
    const answer = core.handle(nodeRequest(req, res, trustProxy));
    if (answer !== undefined && !(answer instanceof Promise)) {
      writer.write(req, res, answer, started);
      // After the write: a response handed whole to the kernel needs no watching.
      watchdog.track(res);
      return;
    }
    // Answered later: in flight, and watched from now on.
    inFlight++;
    res.once('close', settle);
    watchdog.track(res);
    if (answer === undefined) {
      void fallback(req, res);
      return;
    }
    void answer.then((settled) => writer.write(req, res, settled, started));
  };

  const server = http.createServer(
    {
      // Host is checked by the core, so the answer is an error record, not Node's bare 400.
      requireHostHeader: false,
      // Node enforces request timeouts on this interval (30 s by default, which would let a
      // slow client hold a socket for up to twice the timeout).
      connectionsCheckingInterval: Math.min(1000, requestTimeoutMs),
    },
    listener,
  );
  // An `Expect` other than 100-continue: the core answers it (417), watched like any other.
  server.on('checkExpectation', listener);
  server.on('close', () => watchdog.close());
  // Every header field is kept, none dropped silently past a count: the core refuses too many
  // with a 431 record, and the head's byte limit (16 KiB) bounds them meanwhile.
  server.maxHeadersCount = 0;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = Math.min(KEEP_ALIVE_TIMEOUT_MS + 1_000, requestTimeoutMs);
  server.requestTimeout = requestTimeoutMs;
  server.on('clientError', onClientError);
  // No tunnels: CONNECT gets a 405 record instead of a silently closed connection.
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
    socket.end(rawErrorResponse(new MethodNotAllowedError(ALLOWED_METHODS)));
  });
  const drain = createConnectionDrain(server, {
    idleCloseMs: deps.drainIdleCloseMs ?? DRAIN_IDLE_CLOSE_MS,
  });
  return { server, drain: drain.drain };
}
