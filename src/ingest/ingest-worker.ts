/**
 * The production ingest loop: while this worker holds the leader lease, run the ingest cycle
 * on every bucket notification and on a fixed polling interval (the listing is also the full
 * reconciliation, so an emptied Redis is rebuilt from the bucket). Followers only renew-try
 * the lease. Publishing is idempotent, so a brief overlap of two leaders cannot duplicate.
 */
import type { Logger } from '../logger';
import type { IngestCycle } from './ingest-cycle';
import type { LeaderLease } from '../domain/ports';
import { createLeadership } from '../shared/leadership';
import { createSerialTrigger } from '../shared/serial-trigger';

export interface IngestWorker {
  start(): Promise<void>;
  /** Called by the notification watcher when an object appears. */
  notify(): void;
  /**
   * Tries for the lease now (and reconciles when it is taken), instead of at the next renewal:
   * called when the Redis connection comes back, so an emptied index is rebuilt at once.
   */
  retake(): void;
  isLeader(): boolean;
  /** Seconds since the last successful cycle, for readiness and metrics. */
  lastSuccessAgeS(): number;
  stop(): Promise<void>;
}

export interface IngestWorkerOptions {
  readonly cycle: IngestCycle;
  readonly lease: LeaderLease;
  readonly logger: Logger;
  readonly pollMs: number;
  /** How often leadership is taken or renewed; well under the lease TTL. */
  readonly leaseRenewMs: number;
  readonly onLeadershipChange?: (leader: boolean) => void;
  readonly now?: () => number;
}

export function createIngestWorker(options: IngestWorkerOptions): IngestWorker {
  const { cycle, logger } = options;
  const now = options.now ?? Date.now;
  let lastSuccess = 0;
  let stopped = false;
  let started = false;
  let pollTimer: NodeJS.Timeout | undefined;

  const leadership = createLeadership({
    lease: options.lease,
    renewMs: options.leaseRenewMs,
    logger,
    role: 'ingest',
    onChange: (leader) => {
      options.onLeadershipChange?.(leader);
      if (leader) runner.trigger(); // reconcile at once on taking over
    },
  });

  const runner = createSerialTrigger(
    async () => {
      if (!leadership.isLeader() || stopped) return;
      await cycle.run();
      lastSuccess = now();
    },
    (err) => logger.error({ err }, 'ingest pass failed; retrying at the next trigger'),
  );

  return {
    async start() {
      started = true;
      await leadership.start();
      pollTimer = setInterval(() => runner.trigger(), options.pollMs);
      await runner.idle();
    },
    notify: () => runner.trigger(),
    retake() {
      if (!started || stopped) return;
      void leadership.renew().then(() => runner.trigger());
    },
    isLeader: () => leadership.isLeader(),
    lastSuccessAgeS: () =>
      lastSuccess === 0 ? Number.POSITIVE_INFINITY : (now() - lastSuccess) / 1000,
    async stop() {
      stopped = true;
      leadership.stopRenewing();
      if (pollTimer) clearInterval(pollTimer);
      await runner.idle();
      await leadership.release();
    },
  };
}
