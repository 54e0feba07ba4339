/**
 * Polls `/status.json` so new frames appear without a reload. The service publishes about
 * every two minutes and each status request costs one rate-limit point, so the default poll
 * is every 30 s; a request never overlaps the previous one. Credential errors (401, 403) stop
 * the polling, since repeating the same request cannot succeed.
 */
import { RadarApiError, RadarRateLimitError } from './errors';
import type { RadarClient } from './radar-client';
import type { RadarStatus } from './status';

/** Options of {@link watchStatus}. */
export interface StatusWatchOptions {
  /** Time between the end of one poll and the start of the next (default 30 s). */
  readonly intervalMs?: number;
  /** Called with every status, including unchanged ones (so ages and health stay current). */
  readonly onStatus: (status: RadarStatus) => void;
  /** Called with every failed poll. */
  readonly onError?: (error: unknown) => void;
}

/** A running watch. */
export interface StatusWatch {
  /** Polls now, or joins the poll already in flight (also resets the timer); resolves when that poll is done. */
  refresh(): Promise<void>;
  /** Stops polling and aborts a request in flight. */
  stop(): void;
}

/** Starts polling at once. */
export function watchStatus(client: RadarClient, options: StatusWatchOptions): StatusWatch {
  const intervalMs = options.intervalMs ?? 30_000;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<void> | undefined;

  const schedule = (delayMs: number) => {
    clearTimeout(timer);
    if (!controller.signal.aborted) timer = setTimeout(() => void poll(), delayMs);
  };

  const poll = (): Promise<void> => {
    if (inFlight) return inFlight;
    clearTimeout(timer);
    inFlight = (async () => {
      let next = intervalMs;
      let status: RadarStatus | undefined;
      try {
        status = await client.status(controller.signal);
      } catch (error) {
        if (controller.signal.aborted) return;
        options.onError?.(error);
        if (error instanceof RadarApiError && (error.status === 401 || error.status === 403)) {
          controller.abort();
          return;
        }
        if (error instanceof RadarRateLimitError)
          next = Math.max(1_000, error.retryAtMs - Date.now());
      } finally {
        inFlight = undefined;
      }
      // A throwing listener is the caller's bug, not a failed request: it must not stop polling.
      try {
        if (status && !controller.signal.aborted) options.onStatus(status);
      } finally {
        schedule(next);
      }
    })();
    return inFlight;
  };

  void poll();
  return {
    refresh: poll,
    stop() {
      controller.abort();
      clearTimeout(timer);
    },
  };
}
