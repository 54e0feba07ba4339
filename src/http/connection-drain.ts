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
 *   balancer has closed its end and will never send on it again;
 * - whatever is still open at the deadline is cut.
 */
import type http from 'node:http';
import net from 'node:net';
import type { Socket } from 'node:net';

export interface ConnectionDrain {
  /** Counts a request (from any server event) against its connection until its response closes. */
  track(req: http.IncomingMessage, res: http.ServerResponse): void;
  /**
   * Stops accepting, then closes connections as they become safe to close; resolves when every
   * connection is closed, cutting those still open after `deadlineMs`.
   */
  drain(deadlineMs: number): Promise<void>;
}

interface Connection {
  /** Requests on it whose response has not closed yet (pipelined ones included). */
  active: number;
  /** `performance.now()` when its last response closed (or it opened). */
  idleSince: number;
}

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
  const connections = new Map<Socket, Connection>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { active: 0, idleSince: performance.now() });
    socket.once('close', () => connections.delete(socket));
  });

  const sweep = () => {
    const now = performance.now();
    for (const [socket, connection] of connections) {
      if (connection.active === 0 && now - connection.idleSince >= options.idleCloseMs)
        socket.destroy();
    }
  };

  return {
    track(req, res) {
      const connection = connections.get(req.socket);
      if (connection === undefined) return;
      connection.active++;
      res.once('close', () => {
        connection.active--;
        if (connection.active === 0) connection.idleSince = performance.now();
      });
    },
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
          resolve();
        });
        sweep();
      });
    },
  };
}
