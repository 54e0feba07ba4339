/**
 * The time a replica counts usage by. Usage is kept per UTC hour in a store every replica and
 * the key CLI share; a replica whose clock ran hours ahead wrote its counts into future hours,
 * where no report looked. So the replica's own clock is trusted only within `maxSkewMs` of the
 * store's (Redis `TIME`, read every `refreshMs`): within it the local clock is used as it is
 * (no jitter from the round trip), past it the store's time is (the local clock plus the
 * measured offset), and the skew is logged once each time it goes past the bound or back.
 * While the store cannot be asked, the last offset measured stays in use.
 */
import type { Logger } from '../logger';

export interface TrustedClock {
  /** Epoch ms: the local clock, or the store's when the two differ by more than the bound. */
  now(): number;
  /** Measures the offset once (a failure is logged, not thrown), then every `refreshMs`. */
  start(): Promise<void>;
  stop(): void;
}

export interface TrustedClockOptions {
  /** The store's time, epoch ms (Redis `TIME`). */
  readonly storeTime: () => Promise<number>;
  /** The most the local clock may differ from the store's and still be used as it is. */
  readonly maxSkewMs: number;
  readonly refreshMs: number;
  readonly logger: Logger;
  readonly localNow?: () => number;
}

export function createTrustedClock(options: TrustedClockOptions): TrustedClock {
  const localNow = options.localNow ?? Date.now;
  const { maxSkewMs, logger } = options;
  let offsetMs = 0;
  let timer: NodeJS.Timeout | undefined;

  const measure = async () => {
    try {
      const sent = localNow();
      const store = await options.storeTime();
      const skewMs = Math.round(store - (sent + localNow()) / 2);
      const trusted = Math.abs(skewMs) <= maxSkewMs;
      if (!trusted && offsetMs === 0)
        logger.warn({ skewMs, maxSkewMs }, 'clock differs from the store; counting by store time');
      else if (trusted && offsetMs !== 0)
        logger.info({ skewMs, maxSkewMs }, 'clock agrees with the store again');
      offsetMs = trusted ? 0 : skewMs;
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'store time unavailable; clock unchanged');
    }
  };

  return {
    now: () => localNow() + offsetMs,
    async start() {
      await measure();
      timer ??= setInterval(() => void measure(), options.refreshMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
