/**
 * Periodic archive-store probe. `healthy` and `/readyz` read the last result; the store counts
 * as reachable until a probe fails, and a slow probe counts as a failure.
 */
import type { ArchiveStore } from '../domain/ports';
import type { Logger } from '../logger';

export interface StoreProbe {
  reachable(): boolean;
  /** Whether any probe has succeeded since start (readiness at start-up). */
  everReachable(): boolean;
  /** Probes now; resolves with the result. */
  check(): Promise<boolean>;
  start(): void;
  stop(): void;
}

/** How often a replica probes the archive store (`healthy` is at most this stale). */
export const STORE_PROBE_INTERVAL_MS = 10_000;

export function createStoreProbe(
  store: ArchiveStore,
  logger: Logger,
  options: {
    intervalMs?: number;
    timeoutMs?: number;
    /** Every probe's result, e.g. for a view shared by all replicas. */
    onResult?: (ok: boolean) => void;
  } = {},
): StoreProbe {
  const intervalMs = options.intervalMs ?? STORE_PROBE_INTERVAL_MS;
  const timeoutMs = options.timeoutMs ?? 2_000;
  let ok = true;
  let everOk = false;
  let timer: NodeJS.Timeout | undefined;

  const check = async () => {
    let timeout: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timeout = setTimeout(
        () => reject(new Error(`probe timed out after ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([store.probe(), expired]);
      if (!ok) logger.info('archive store reachable again');
      ok = true;
      everOk = true;
    } catch (err) {
      if (ok) logger.warn({ err: (err as Error).message }, 'archive store probe failed');
      ok = false;
    } finally {
      clearTimeout(timeout);
    }
    options.onResult?.(ok);
    return ok;
  };

  return {
    reachable: () => ok,
    everReachable: () => everOk,
    check,
    start() {
      timer = setInterval(() => void check(), intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
