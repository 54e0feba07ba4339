/**
 * One ranged GET of an archive window on a presigned URL, resolved when the response headers
 * arrive, with the three limits a store read needs: waiting for a pooled socket is bounded
 * (`socketWaitMs`, a local refusal), the first byte must come within `timeoutMs` of the socket
 * unless the store is delivering to other reads meanwhile (then it is busy, not failing), and
 * the client's signal aborts either. A keep-alive connection the store closed just as it was
 * reused is retried once; a refused URL (expired, rotated credentials, skewed clock) is
 * re-signed once.
 */
import type { ByteWindow } from '../../domain/ports';
import { ClientGoneError, StoreBusyError } from '../../domain/archive-errors';
import { S3TimeoutError, type S3Client } from './client';
import type { PresignedUrls } from './presigned-urls';
import type { StoreActivity } from './store-activity';
import { isConnectionReset, RequestCancelled, type Upstream, type Verdict } from './upstream';

export interface WindowRequesterOptions {
  readonly client: S3Client;
  readonly urls: PresignedUrls;
  /** Notes every byte the store delivers (tells a busy store from a failing one). */
  readonly activity: StoreActivity;
  readonly timeoutMs: number;
  readonly socketWaitMs: number;
}

/** `(key, window, signal) => the response headers for the window`. */
export function createWindowRequester(
  options: WindowRequesterOptions,
): (key: string, window: ByteWindow, signal: AbortSignal) => Promise<Upstream> {
  const { client, urls, activity, timeoutMs, socketWaitMs } = options;

  /**
   * Sends a GET for the window and resolves once the response headers arrive. Waiting for a
   * pooled socket is bounded by `socketWaitMs` (a local refusal); from the socket on, the
   * first byte must come within `budgetMs` (a store failure); `signal` aborts either.
   */
  const requestOnce = (url: URL, window: ByteWindow, signal: AbortSignal, budgetMs: number) =>
    new Promise<Upstream>((resolve, reject) => {
      const request = client.transport.request(url, {
        agent: client.agent,
        method: 'GET',
        headers: { Range: `bytes=${window.offset}-${window.offset + window.length - 1}` },
      });
      let settled = false;
      let firstByteTimer: NodeJS.Timeout | undefined;
      const settle = () => {
        settled = true;
        clearTimeout(waitTimer);
        clearTimeout(firstByteTimer);
        signal.removeEventListener('abort', onAbort);
      };
      const cancel = (reason: Error, verdict: Verdict) => {
        if (settled) return;
        settle();
        request.destroy(reason);
        reject(new RequestCancelled(reason, verdict));
      };
      const waitTimer = setTimeout(
        () => cancel(new StoreBusyError('socket-wait'), 'release'),
        socketWaitMs,
      );
      const onAbort = () => cancel(new ClientGoneError(), 'release');
      signal.addEventListener('abort', onAbort, { once: true });
      request.once('socket', () => {
        clearTimeout(waitTimer);
        if (settled) return;
        const since = activity.now();
        firstByteTimer = setTimeout(() => {
          if (activity.deliveredSince(since)) cancel(new StoreBusyError('store-busy'), 'release');
          else cancel(new S3TimeoutError(timeoutMs), 'failure');
        }, budgetMs);
      });
      request.once('response', (response) => {
        activity.note();
        if (settled) return void response.destroy(); // lost the race: release its socket
        settle();
        resolve({ response, request });
      });
      request.on('error', (err) => {
        if (settled) return;
        settle();
        reject(err);
      });
      request.end();
    });

  /**
   * One ranged GET. A keep-alive connection the store closed just as it was reused fails
   * before any response; the GET is idempotent, so it is retried once on a fresh connection
   * within what is left of the time limit.
   */
  const requestWindow = async (
    url: URL,
    window: ByteWindow,
    signal: AbortSignal,
  ): Promise<Upstream> => {
    const started = Date.now();
    try {
      return await requestOnce(url, window, signal, timeoutMs);
    } catch (err) {
      const stale = !(err instanceof RequestCancelled) && isConnectionReset(err);
      if (!stale || signal.aborted) throw err;
      return requestOnce(url, window, signal, Math.max(1, timeoutMs - (Date.now() - started)));
    }
  };

  /** The response headers for a window, re-signing once if the store refuses the URL. */
  const fetchWindow = async (
    key: string,
    window: ByteWindow,
    signal: AbortSignal,
  ): Promise<Upstream> => {
    const first = await requestWindow(await urls.urlFor(key), window, signal);
    if (first.response.statusCode !== 403) return first;
    // An expired URL, rotated credentials or a skewed clock: sign afresh once.
    first.response.resume();
    urls.forget(key);
    return requestWindow(await urls.urlFor(key), window, signal);
  };

  return fetchWindow;
}
