/**
 * Errors the client raises. Every failed answer of the service becomes a {@link RadarApiError}
 * carrying the HTTP status and the error record's message, so callers branch on `status`
 * rather than parse text; rate limiting has its own class because callers must wait, not fix.
 */

/** The service answered with an error status (after any 429 retries were spent). */
export class RadarApiError extends Error {
  /** HTTP status of the answer (401, 403, 404, 429, 503, ...). */
  readonly status: number;
  /** `error.message` of the service's error record, or the HTTP status text. */
  readonly serviceMessage: string;
  /** Path that was requested, without the base URL. */
  readonly path: string;

  constructor(status: number, serviceMessage: string, path: string) {
    super(`${status} ${serviceMessage} (${path})`);
    this.name = 'RadarApiError';
    this.status = status;
    this.serviceMessage = serviceMessage;
    this.path = path;
  }
}

/**
 * `429 Too Many Requests` that the client would not (or could no longer) wait out: the retry
 * budget was spent, or the wait the service asked for is longer than `maxWaitMs`.
 */
export class RadarRateLimitError extends RadarApiError {
  /** Epoch milliseconds from which requests are expected to succeed again. */
  readonly retryAtMs: number;

  constructor(path: string, retryAtMs: number) {
    super(429, 'Too Many Requests', path);
    this.name = 'RadarRateLimitError';
    this.retryAtMs = retryAtMs;
  }
}

/** The service answered 2xx with a body that breaks the interface (e.g. a malformed status). */
export class RadarResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RadarResponseError';
  }
}
