/**
 * The one way the client talks HTTP to the service. Every request carries both credentials
 * (`Authorization` and `X-App`), every response updates the rate-limit state, and a
 * 429 is waited out with bounded backoff: at most `maxRetries` retries, never a single wait
 * longer than `maxWaitMs`. After a 429 the transport holds all requests until the window
 * reopens, so twenty concurrent tile requests do not each collect their own 429.
 *
 * A GET that fails before any byte of the answer arrives (`fetch` rejects: the connection was
 * reset, refused or closed, as a proxy reloading its workers does to idle kept-alive
 * connections) is sent again, at most `maxNetworkRetries` times after a short backoff: a GET
 * is idempotent, and nothing of the answer was seen. An abort is never retried, and a failure
 * while reading a body that has begun is the caller's (the answer was already handed over).
 */
import { RadarApiError, RadarRateLimitError } from './errors';
import { readRateLimit, retryDelayMs, type RateLimitState } from './rate-limit';

/** An API key and the application identifier it is bound to. */
export interface RadarCredentials {
  readonly apiKey: string;
  readonly appId: string;
}

/** Options of {@link createRadarTransport}. */
export interface RadarTransportOptions {
  /** Service base URL, e.g. `https://radar.example.com` (a trailing slash is ignored). */
  readonly baseUrl: string;
  readonly credentials: RadarCredentials;
  /** Retries of one request after 429 responses (default 3). */
  readonly maxRetries?: number;
  /**
   * Longest wait honoured after a 429 (default 65 s, just over the default 60 s window). A
   * request that would have to wait longer fails at once with {@link RadarRateLimitError}.
   */
  readonly maxWaitMs?: number;
  /** Wait after a 429 without `Retry-After` or reset headers, doubled per retry (default 1 s). */
  readonly backoffMs?: number;
  /** Retries of a GET that failed before any byte of the answer arrived (default 2). */
  readonly maxNetworkRetries?: number;
  /** Wait before the first such retry, doubled per retry (default 50 ms). */
  readonly networkBackoffMs?: number;
  /** Injected for tests and non-browser runtimes; defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Clock, epoch milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

/** Per-request options. */
export interface RadarRequestInit {
  readonly headers?: Readonly<Record<string, string>>;
  /** Aborts the request and any wait for the rate limit. */
  readonly signal?: AbortSignal;
}

/** Authenticated, rate-limit-aware GET requests to one service. */
export interface RadarTransport {
  /** Base URL without a trailing slash. */
  readonly baseUrl: string;
  /** Absolute URL of a service path such as `/status.json`. */
  url(path: string): string;
  /**
   * GETs `path`. Resolves with any status below 400 (body unread); rejects with
   * {@link RadarApiError} for error statuses and {@link RadarRateLimitError} when a 429
   * cannot be waited out within the bounds.
   */
  get(path: string, init?: RadarRequestInit): Promise<Response>;
  /** The latest rate-limit state seen, or `undefined` before the first counted response. */
  rateLimit(): RateLimitState | undefined;
  /** Called on every rate-limit state change; returns an unsubscribe function. */
  onRateLimit(listener: (state: RateLimitState) => void): () => void;
  /** Called with every error the transport rejects with; returns an unsubscribe function. */
  onError(listener: (error: RadarApiError) => void): () => void;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function serviceMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body?.error?.message === 'string') return body.error.message;
  } catch {
    // Not an error record (e.g. a proxy's HTML page): fall back to the status text.
  }
  return response.statusText || `HTTP ${response.status}`;
}

/** Creates a transport for one base URL and one set of credentials. */
export function createRadarTransport(options: RadarTransportOptions): RadarTransport {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const maxRetries = options.maxRetries ?? 3;
  const maxWaitMs = options.maxWaitMs ?? 65_000;
  const backoffMs = options.backoffMs ?? 1_000;
  const fetchOnce = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const maxNetworkRetries = options.maxNetworkRetries ?? 2;
  const networkBackoffMs = options.networkBackoffMs ?? 50;
  /** `fetch`, sent again when it fails before the answer's head arrived (see above). */
  const doFetch = async (url: string, init: RequestInit): Promise<Response> => {
    for (let retry = 0; ; retry++) {
      try {
        return await fetchOnce(url, init);
      } catch (err) {
        if (init.signal?.aborted || retry >= maxNetworkRetries) throw err;
      }
      await sleep(networkBackoffMs * 2 ** retry, init.signal ?? undefined);
    }
  };
  const now = options.now ?? Date.now;
  const authHeaders = {
    Authorization: `Bearer ${options.credentials.apiKey}`,
    'X-App': `Bearer ${options.credentials.appId}`,
  };
  const rateListeners = new Set<(state: RateLimitState) => void>();
  const errorListeners = new Set<(error: RadarApiError) => void>();
  let state: RateLimitState | undefined;

  const setState = (next: RateLimitState) => {
    state = next;
    for (const listener of rateListeners) listener(next);
  };
  const fail = (error: RadarApiError): never => {
    for (const listener of errorListeners) listener(error);
    throw error;
  };

  /**
   * Merges a response's quota into the state, or returns `undefined` to ignore it. A response
   * from a later window replaces the state and ends a 429 hold (the window reopened). An
   * earlier window, or a higher `remaining` in the same one, is stale: a browser-cached range
   * carries the headers of when it was first fetched, and must not end a hold.
   */
  const merge = (observed: RateLimitState): RateLimitState | undefined => {
    if (!state || observed.resetAtMs > state.resetAtMs) return observed;
    if (observed.resetAtMs < state.resetAtMs || observed.remaining > state.remaining)
      return undefined;
    const hold =
      state.blockedUntilMs !== undefined && state.blockedUntilMs > now()
        ? state.blockedUntilMs
        : undefined;
    return hold === undefined ? observed : { ...observed, blockedUntilMs: hold };
  };

  /** Waits while an earlier 429 holds requests back; fails if that wait is too long. */
  const awaitWindow = async (path: string, signal: AbortSignal | undefined) => {
    const until = state?.blockedUntilMs;
    if (until === undefined) return;
    const wait = until - now();
    if (wait <= 0) return;
    if (wait > maxWaitMs) fail(new RadarRateLimitError(path, until));
    await sleep(wait, signal);
  };

  return {
    baseUrl,
    url: (path) => `${baseUrl}${path}`,
    async get(path, init = {}) {
      for (let attempt = 0; ; attempt++) {
        await awaitWindow(path, init.signal);
        const response = await doFetch(`${baseUrl}${path}`, {
          method: 'GET',
          headers: { ...init.headers, ...authHeaders },
          signal: init.signal,
        });
        const observed = readRateLimit(response.headers, now());
        if (response.status !== 429) {
          const merged = observed && merge(observed);
          if (merged) setState(merged);
          if (response.status < 400) return response;
          return fail(new RadarApiError(response.status, await serviceMessage(response), path));
        }
        const delay = retryDelayMs(response.headers, now(), backoffMs * 2 ** attempt);
        const blockedUntilMs = now() + delay;
        setState({
          ...(observed ?? state ?? { limit: 0, remaining: 0, resetAtMs: blockedUntilMs }),
          remaining: 0,
          blockedUntilMs,
          observedAtMs: now(),
        });
        await response.body?.cancel().catch(() => undefined);
        if (attempt >= maxRetries || delay > maxWaitMs)
          return fail(new RadarRateLimitError(path, blockedUntilMs));
      }
    },
    rateLimit: () => state,
    onRateLimit(listener) {
      rateListeners.add(listener);
      return () => rateListeners.delete(listener);
    },
    onError(listener) {
      errorListeners.add(listener);
      return () => errorListeners.delete(listener);
    },
  };
}
