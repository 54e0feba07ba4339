/**
 * The send timeout (`RADAR_SEND_TIMEOUT_S`): a response that makes no write progress for that
 * long is destroyed, which closes its socket and, through the answer writer, the file or store
 * stream behind its body. Without it a client that asks for a large archive and never reads holds a socket,
 * a descriptor or a store connection, and the buffered bytes, for as long as it likes.
 *
 * Progress is the socket's `bytesWritten` (bytes accepted for sending): it stops moving once
 * the kernel and stream buffers are full because the client does not read. One shared sweep
 * per second checks every open response, so a request costs one Map entry, not a timer.
 */
import type { ServerResponse } from 'node:http';

/** The destroy reason of a response cut by the send timeout. */
export class SendTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`response made no write progress for ${timeoutMs} ms`);
    this.name = 'SendTimeoutError';
  }
}

export interface SendWatchdog {
  /** Watches `res` until it finishes or closes. */
  track(res: ServerResponse): void;
  /** Responses watched now; for tests. */
  size(): number;
  /** Stops the sweep (responses stay as they are). */
  close(): void;
}

interface Progress {
  bytes: number;
  since: number;
}

export interface SendWatchdogOptions {
  readonly timeoutMs: number;
  /** Called for each response cut, e.g. to count or log it. */
  readonly onTimeout?: (res: ServerResponse) => void;
  readonly now?: () => number;
}

/** Creates a watchdog; its sweep runs only while responses are watched and never holds the process. */
export function createSendWatchdog(options: SendWatchdogOptions): SendWatchdog {
  const { timeoutMs } = options;
  const now = options.now ?? Date.now;
  const sweepMs = Math.max(50, Math.min(1000, Math.floor(timeoutMs / 4)));
  const watched = new Map<ServerResponse, Progress>();
  let timer: NodeJS.Timeout | undefined;

  const sweep = () => {
    const t = now();
    for (const [res, seen] of watched) {
      if (res.writableFinished) continue;
      const socket = res.socket;
      // A pipelined response waiting for its turn has no socket yet: it is not stalled.
      const bytes = socket?.bytesWritten ?? Number.NaN;
      if (socket == null || bytes !== seen.bytes) {
        seen.bytes = bytes;
        seen.since = t;
      } else if (t - seen.since >= timeoutMs) {
        watched.delete(res);
        options.onTimeout?.(res);
        res.destroy(new SendTimeoutError(timeoutMs));
      }
    }
    if (watched.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  return {
    track(res) {
      // Ended with every byte handed to the kernel (a body in memory, written at once): nothing
      // is left in user space for a stalled client to hold, and the idle socket times out as usual.
      if (res.writableEnded && res.socket != null && res.socket.writableLength === 0) return;
      watched.set(res, { bytes: res.socket?.bytesWritten ?? Number.NaN, since: now() });
      // 'close' follows 'finish' on every ServerResponse (Node emits it once the response is
      // done or aborted), so one listener covers both; a finished response waiting for its
      // 'close' tick is skipped by the sweep.
      res.once('close', () => watched.delete(res));
      if (timer === undefined) {
        timer = setInterval(sweep, sweepMs);
        timer.unref();
      }
    },
    size: () => watched.size,
    close() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      watched.clear();
    },
  };
}
