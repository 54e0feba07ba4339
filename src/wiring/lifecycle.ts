/**
 * Graceful shutdown: on SIGTERM/SIGINT readiness fails at once, the public listeners drain
 * (`http/connection-drain.ts`: no new connections, every request that arrives is answered
 * with `Connection: close`, idle kept-alive connections closed only once the balancer has let
 * go of them, up to `drainS` seconds in all), then background work and clients close (clients
 * last) and the process exits 0.
 */
import type http from 'node:http';
import type { Logger } from '../logger';
import { onStopSignals } from './stop-signals';
import { exitWhenWritten } from '../shared/flushed-exit';

export interface ShutdownPlan {
  readonly logger: Logger;
  /** Drains of the public listeners: each resolves once its connections are closed. */
  readonly drains: ReadonlyArray<(deadlineMs: number) => Promise<void>>;
  /** Listeners closed after the drain (admin), so probes see "not ready" meanwhile. */
  readonly lateServers?: readonly http.Server[];
  readonly drainS: number;
  /** Marks the process as shutting down (readiness turns false). */
  readonly beginShutdown: () => void;
  /** Stops background work and closes clients, in order. */
  readonly closers: ReadonlyArray<() => Promise<void>>;
}

/** Stops a listener that no balancer uses (admin): idle connections close at once. */
function closeServer(server: http.Server, deadlineMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const deadline = setTimeout(() => server.closeAllConnections(), deadlineMs);
    deadline.unref();
    server.close(() => {
      clearTimeout(deadline);
      resolve();
    });
  });
}

/** Runs the shutdown plan once; later calls return the same promise. */
export function createShutdown(plan: ShutdownPlan): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= (async () => {
      plan.beginShutdown();
      plan.logger.info({ drainS: plan.drainS }, 'shutting down: draining in-flight requests');
      await Promise.all(plan.drains.map((drain) => drain(plan.drainS * 1000)));
      for (const close of plan.closers) {
        try {
          await close();
        } catch (err) {
          plan.logger.warn({ err }, 'error while closing');
        }
      }
      await Promise.all((plan.lateServers ?? []).map((s) => closeServer(s, 1000)));
      plan.logger.info('shutdown complete');
    })();
    return done;
  };
}

/** Exit code after a fatal error (an uncaught exception or an unhandled rejection). */
export const FATAL_EXIT_CODE = 1;

export interface FatalErrorOptions {
  readonly logger: Logger;
  /** The process's graceful shutdown (readiness fails at once, in-flight requests drain). */
  readonly shutdown: () => Promise<void>;
  /** Longest wait for that shutdown before exiting anyway (drain + closing clients). */
  readonly deadlineMs: number;
}

/**
 * Handles `uncaughtException` and `unhandledRejection`: a bug left the process in a state
 * nobody planned for, so it stops serving. The error is logged (fatal, with its stack),
 * readiness fails at once so the balancer stops sending traffic, in-flight responses drain as
 * at SIGTERM, and the process exits non-zero so the supervisor restarts it and counts the
 * crash. Node's default would exit at once, cutting every in-flight download, and with
 * nothing in the JSON logs. Further fatal errors while draining are logged only; the
 * deadline ends a drain that cannot finish.
 */
export function onFatalErrors(options: FatalErrorOptions): void {
  let exiting = false;
  const fatal = (kind: 'uncaught exception' | 'unhandled rejection', err: unknown) => {
    options.logger.fatal({ err, kind }, `${kind}: stopping (drain, then exit ${FATAL_EXIT_CODE})`);
    if (exiting) return;
    exiting = true;
    process.exitCode = FATAL_EXIT_CODE;
    setTimeout(() => process.exit(FATAL_EXIT_CODE), options.deadlineMs).unref();
    void options.shutdown().then(
      () => exitWhenWritten(FATAL_EXIT_CODE),
      () => exitWhenWritten(FATAL_EXIT_CODE),
    );
  };
  process.on('uncaughtException', (err) => fatal('uncaught exception', err));
  process.on('unhandledRejection', (reason) => fatal('unhandled rejection', reason));
}

/**
 * Wires SIGTERM and SIGINT to `shutdown`, exiting 0 when it completes. The same signal sent
 * again later forces exit 1; its echo (one Ctrl-C under `npm run` arrives twice) does not.
 */
export function onSignals(shutdown: () => Promise<void>): void {
  onStopSignals({
    stop: () =>
      void shutdown().then(
        // 0, unless a fatal error is already stopping the process.
        () => exitWhenWritten(process.exitCode === FATAL_EXIT_CODE ? FATAL_EXIT_CODE : 0),
        () => exitWhenWritten(1),
      ),
    force: () => process.exit(1),
  });
}

/** Listens on `port` (0: any) and resolves with the bound port. */
export function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
