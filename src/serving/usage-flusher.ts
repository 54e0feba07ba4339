/**
 * Moves the replica's usage counts from the meter to the usage store: every `intervalMs` one
 * batch (every key-hour counted since the last one, in one call of the store per
 * `MAX_BATCH_ENTRIES` key-hours), so the store's cost does not grow with the request rate. A batch is numbered (`source`, `seq`) and kept
 * until the store acknowledges it; a failed call is retried with the same number at the next
 * tick, while the meter keeps counting the requests after it, and a store applies a number
 * once, so a reply lost after the counts were added never counts them twice (docs/usage.md,
 * "Accuracy"). `stop` takes what is left and flushes it, retrying briefly.
 */
import type { UsageStore } from '../domain/usage-ports';
import { REQUESTS_FIELD, type UsageBatch } from '../domain/usage';
import type { Logger } from '../logger';
import { processInstanceName } from '../shared/process-name';
import type { UsageMeter } from './usage-meter';

/** What the flusher reports (metrics). */
export interface UsageFlushEvents {
  onFlush(outcome: 'ok' | 'failed'): void;
  onDropped(requests: number): void;
}

export interface UsageFlusherOptions {
  readonly meter: UsageMeter;
  readonly store: UsageStore;
  readonly intervalMs: number;
  readonly logger: Logger;
  /** This process's name in the store's once-only bookkeeping; new and unique by default. */
  readonly source?: string;
  readonly events?: UsageFlushEvents;
  /** Attempts of the last flush at `stop` (default 3), `retryMs` apart (default 300). */
  readonly finalAttempts?: number;
  readonly retryMs?: number;
}

export interface UsageFlusher {
  /** Flushes every `intervalMs` from now on. */
  start(): void;
  /**
   * One flush now (after the one in progress, if any): the batch still unacknowledged first,
   * then, if that succeeded, everything counted since. Resolves whether the store took all of
   * it; never rejects.
   */
  flush(): Promise<boolean>;
  /** Key-hours taken from the meter and not yet acknowledged by the store. */
  pendingEntries(): number;
  /** Stops the timer and flushes what is left (a few attempts); resolves when done. */
  stop(): Promise<void>;
}

/**
 * Key-hours per batch: a flush of more is sent as several batches, one after the other, so
 * one store call (one Lua script in Redis) never grows with the number of active keys.
 */
export const MAX_BATCH_ENTRIES = 500;

/** At most one warning per this long while the store fails. */
const FAILURE_LOG_INTERVAL_MS = 30_000;

/** A flusher of `meter` into `store`; `start` begins the ticks, `stop` ends with a last flush. */
export function createUsageFlusher(options: UsageFlusherOptions): UsageFlusher {
  const { meter, store, logger } = options;
  const source = options.source ?? processInstanceName();
  const events = options.events;
  let seq = 0;
  /** Batches taken and not yet acknowledged, oldest first; sent in order. */
  let pending: UsageBatch[] = [];
  /** The flush in progress (flushes run one after the other; this one never rejects). */
  let running: Promise<boolean> = Promise.resolve(true);
  let timer: NodeJS.Timeout | undefined;
  let failingSince: number | undefined;
  let lastFailureLog = -Infinity;

  const noteDropped = () => {
    const dropped = meter.takeDropped();
    if (dropped === 0) return;
    events?.onDropped(dropped);
    logger.warn(
      { dropped, heldKeyHours: meter.size() },
      'usage: requests not counted, the meter holds its maximum of key-hours (RADAR_USAGE_MAX_ENTRIES)',
    );
  };

  const send = async (batch: UsageBatch): Promise<boolean> => {
    try {
      await store.apply(batch);
    } catch (err) {
      events?.onFlush('failed');
      const now = Date.now();
      failingSince ??= now;
      if (now - lastFailureLog >= FAILURE_LOG_INTERVAL_MS) {
        lastFailureLog = now;
        logger.warn(
          {
            err: (err as Error).message,
            seq: batch.seq,
            pendingKeyHours: pendingEntries(),
            heldKeyHours: meter.size(),
            failingForMs: now - failingSince,
          },
          'usage: flush failed; counts kept and retried',
        );
      }
      return false;
    }
    events?.onFlush('ok');
    if (failingSince !== undefined) {
      logger.info({ failedForMs: Date.now() - failingSince }, 'usage: flush succeeded again');
      failingSince = undefined;
      lastFailureLog = -Infinity;
    }
    pending = pending.slice(1);
    return true;
  };

  const pendingEntries = () => pending.reduce((sum, batch) => sum + batch.entries.length, 0);

  const flushOnce = async (): Promise<boolean> => {
    noteDropped();
    // What failed before goes first, so batch numbers reach the store in order.
    while (pending.length > 0) if (!(await send(pending[0]!))) return false;
    const entries = meter.take();
    for (let i = 0; i < entries.length; i += MAX_BATCH_ENTRIES)
      pending.push({ source, seq: ++seq, entries: entries.slice(i, i + MAX_BATCH_ENTRIES) });
    while (pending.length > 0) if (!(await send(pending[0]!))) return false;
    return true;
  };

  /** `flushOnce`, and a failure nobody planned for logged as a failed flush, never thrown. */
  const guarded = async (): Promise<boolean> => {
    try {
      return await flushOnce();
    } catch (err) {
      logger.error({ err }, 'usage: flush failed unexpectedly; counts kept');
      return false;
    }
  };

  const flush = () => {
    running = running.then(guarded);
    return running;
  };

  return {
    start() {
      timer ??= setInterval(() => void flush(), options.intervalMs);
      timer.unref();
    },
    flush,
    pendingEntries,
    async stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      const attempts = options.finalAttempts ?? 3;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        if (await flush()) return;
        if (attempt < attempts)
          await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 300));
      }
      const lost = [...pending.flatMap((batch) => batch.entries), ...meter.take()];
      const requests = lost.reduce((sum, e) => sum + (e.counts[REQUESTS_FIELD] ?? 0), 0);
      logger.error(
        { keyHours: lost.length, requests },
        'usage: the last flush failed; these counts are lost',
      );
    },
  };
}
