/**
 * The frame of a background process without public listeners (the ingest worker, the MRMS
 * producer): an admin listener for `/healthz`, `/readyz` and `/metrics`, its components
 * started in order, and one shutdown that stops the work and then closes the clients.
 */
import type { Registry } from 'prom-client';
import type { AdminSettings } from '../config-types';
import { createAdminServer } from '../http/admin';
import type { Logger } from '../logger';
import { exposition } from '../observability/registry';
import { startAll, stoppers, type Component } from './component';
import { createShutdown, listen } from './lifecycle';

/** What {@link startAdminServedProcess} runs. */
export interface AdminServedPlan {
  readonly logger: Logger;
  readonly admin: AdminSettings;
  readonly registry: Registry;
  /** The work, started in order once the admin listener is up, stopped in reverse. */
  readonly components: readonly Component[];
  /** Connections closed after the work has stopped, in this order. */
  readonly clients: readonly Component[];
}

/** A started process: its admin port and its graceful shutdown (runs once). */
export interface AdminServedProcess {
  readonly adminPort: number;
  readonly shutdown: () => Promise<void>;
}

/**
 * Listens on the admin port, then starts the components. Readiness says "starting" until
 * every component has started and "shutting down" from the first moment of the shutdown, so
 * a probe never calls a half-built or stopping process ready. When a component fails to
 * start, everything already open is shut down before the error is rethrown: a failed start
 * leaves no listener or connection behind.
 */
export async function startAdminServedProcess(plan: AdminServedPlan): Promise<AdminServedProcess> {
  let shuttingDown = false;
  let started = false;
  const admin = createAdminServer({
    readiness: () =>
      shuttingDown
        ? { ready: false, reason: 'shutting down' }
        : started
          ? { ready: true }
          : { ready: false, reason: 'starting' },
    metrics: () => exposition(plan.registry),
  });
  const adminPort = await listen(admin, plan.admin.port, plan.admin.host);
  const shutdown = createShutdown({
    logger: plan.logger,
    drains: [],
    lateServers: [admin],
    drainS: 0,
    beginShutdown: () => {
      shuttingDown = true;
    },
    closers: [...stoppers(plan.components), ...plan.clients.map((client) => () => client.stop())],
  });
  try {
    await startAll(plan.components);
  } catch (error) {
    await shutdown();
    throw error;
  }
  started = true;
  return { adminPort, shutdown };
}
