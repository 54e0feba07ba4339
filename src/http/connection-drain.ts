/**
 * A graceful drain for a listener behind a balancer that keeps connections alive. HTTP/1.1
 * gives a server no way to tell a client "send nothing more" on an idle kept-alive
 * connection except closing it, and a request already on the wire when the server closes is
 * reset: the balancer sees `recv() failed (104)`, and without a retry the client sees a 502.
 * So the drain never closes a connection that a request may be travelling on:
 * - it stops accepting new connections (without Node's `closeIdleConnections`);
 * - a request that arrives on an open connection is answered, with `Connection: close` (the
 *   answer writer adds it while draining), and Node closes the connection after it;
 * - a connection with nothing in flight is closed only once it has been idle for
 *   `idleCloseMs`, which is set above the balancer's own upstream idle timeout: by then the
 *   balancer has closed its end and will never send on it again (idleness is watched only
 *   during the drain, so serving requests costs nothing for it);
 * - whatever is still open at the deadline is cut.
 */
import type http from 'node:http';
import net from 'node:net';
import type { Socket } from 'node:net';

export interface ConnectionDrain {
  /**
   * Stops accepting, then closes connections as they become safe to close; resolves when every
   * connection and its response have emitted `close`, cutting those still open after
   * `deadlineMs`.
   */
  drain(deadlineMs: number): Promise<void>;
}

/** What the drain saw of a connection at its last look. */
interface Seen {
  /** Bytes read and written then: a change is activity. */
  bytes: number;
  /** `performance.now()` of the last activity seen (or of the drain's start). */
  activeAt: number;
}

/** Node's current response on a socket, if any (its own bookkeeping of the exchange). */
const inFlight = (socket: Socket): boolean =>
  (socket as Socket & { _httpMessage?: unknown })._httpMessage != null;

export interface ConnectionDrainOptions {
  /** A connection idle this long during a drain is closed (above the balancer's idle timeout). */
  readonly idleCloseMs: number;
  /** How often idle connections are looked at during a drain. */
  readonly sweepMs?: number;
}

export function createConnectionDrain(
  server: http.Server,
  options: ConnectionDrainOptions,
): ConnectionDrain {
  // Connections only; nothing per request, so serving pays nothing for the drain.
  const connections = new Set<Socket>();
  /** Called once the last connection has closed, while a drain waits for that. */
  let onLastClose: (() => void) | undefined;
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => {
      connections.delete(socket);
      if (connections.size === 0) onLastClose?.();
    });
  });
  /**
   * Resolves once every connection has emitted `close` and that event's other listeners (the
   * response's own `close`, where a cut answer is recorded) have run. Node's close callback
   * comes earlier, as soon as its connection count reaches zero, while destroyed sockets have
   * yet to emit `close`: resolving there let a shutdown flush usage before the requests cut
   * at the deadline were counted.
   */
  const allClosed = () =>
    new Promise<void>((resolve) => {
      const settle = () => setImmediate(resolve);
      if (connections.size === 0) return settle();
      onLastClose = () => {
        onLastClose = undefined;
        settle();
      };
    });

  // Activity is watched only while draining, at each sweep: a connection with a response in
  // flight, or whose byte counts moved since the last look, is active; one that stayed idle
  // `idleCloseMs` (counted from the drain's start at the earliest) is closed.
  const seen = new Map<Socket, Seen>();
  const sweep = () => {
    const now = performance.now();
    for (const socket of connections) {
      const bytes = socket.bytesRead + socket.bytesWritten;
      const last = seen.get(socket);
      if (last === undefined || inFlight(socket) || last.bytes !== bytes) {
        seen.set(socket, { bytes, activeAt: now });
      } else if (now - last.activeAt >= options.idleCloseMs) {
        socket.destroy();
      }
    }
  };

  return {
    drain(deadlineMs) {
      return new Promise((resolve) => {
        if (!server.listening) return resolve();
        const sweeper = setInterval(sweep, options.sweepMs ?? 100);
        const deadline = setTimeout(() => server.closeAllConnections(), deadlineMs);
        deadline.unref();
        // net.Server's close: stop accepting and call back once every connection has ended.
        // (http.Server's own close would first close every idle connection at once.)
        net.Server.prototype.close.call(server, () => {
          clearInterval(sweeper);
          clearTimeout(deadline);
          void allClosed().then(resolve);
        });
        sweep();
      });
    },
  };
}
