/**
 * Holding a leader lease, for every worker that must run alone (the ingest worker, the MRMS
 * follower): the lease is tried for at start and every `renewMs` after (well under its TTL),
 * the answer is kept for `isLeader`, and the lease is given up at shutdown so another worker
 * takes over at once instead of after the TTL. A check that fails (the store unreachable)
 * counts as not holding it: the holder's work is idempotent, so a short overlap of two leaders
 * harms nothing, while a leader that cannot renew must not go on as if it could.
 */
import type { LeaderLease } from '../domain/ports';
import type { Logger } from '../logger';

export interface Leadership {
  /** Whether the last check found this worker holding the lease. */
  isLeader(): boolean;
  /** Checks the lease now (takes or renews it); resolves once known. Nothing once stopped. */
  renew(): Promise<void>;
  /** The first check, then one every `renewMs` (an unref'd timer) until `stopRenewing`. */
  start(): Promise<void>;
  /** Ends the renewals; leadership stays as it is until `release`. */
  stopRenewing(): void;
  /** Gives the lease up when held (a failure to is ignored: the TTL ends it) and reports the loss. */
  release(): Promise<void>;
}

export interface LeadershipOptions {
  readonly lease: LeaderLease;
  /** How often the lease is checked; well under its TTL. */
  readonly renewMs: number;
  readonly logger: Logger;
  /** Who leads, for the log lines: `ingest leadership acquired`, `mrms leadership lost`. */
  readonly role: string;
  /** Called on every change, once `isLeader` answers the new value. */
  readonly onChange?: (leader: boolean) => void;
}

export function createLeadership(options: LeadershipOptions): Leadership {
  const { lease, logger, role } = options;
  let leader = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const set = (value: boolean) => {
    if (value === leader) return;
    leader = value;
    logger.info({ leader }, value ? `${role} leadership acquired` : `${role} leadership lost`);
    options.onChange?.(value);
  };

  const renew = async () => {
    if (stopped) return;
    let held = false;
    try {
      held = await lease.acquire();
    } catch (err) {
      logger.warn({ err: (err as Error).message }, `${role} leader lease check failed`);
    }
    set(held);
  };

  return {
    isLeader: () => leader,
    renew,
    async start() {
      await renew();
      if (stopped || timer) return;
      timer = setInterval(() => void renew(), options.renewMs);
      timer.unref();
    },
    stopRenewing() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    async release() {
      if (!leader) return;
      await lease.release().catch(() => undefined);
      set(false);
    },
  };
}
