/**
 * The error registry: one class per HTTP status the service answers with an error record.
 * Every error carries `status`, the exact public `message` of its status (its reason phrase,
 * listed in docs/behaviour.md) and `expose = true`; internal details stay in
 * `cause` and never reach a response body.
 */
import { jsonText } from './shared/json-text';

/** Base of every error that maps to a public error record. */
export abstract class HttpError extends Error {
  abstract readonly status: number;
  readonly expose = true;
  /** Extra response headers the status requires (e.g. `Allow`, `WWW-Authenticate`). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    message: string,
    headers: Record<string, string> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.headers = headers;
    this.name = new.target.name;
  }
}

// One class per status: the classes repeat a shape, each names its status, public
// message and headers, so a throw site reads as the answer it produces.
export class BadRequestError extends HttpError {
  readonly status = 400;
  constructor(options?: { cause?: unknown }) {
    super('Bad Request', {}, options);
  }
}

export class UnauthorizedError extends HttpError {
  readonly status = 401;
  constructor() {
    super('Unauthorized', { 'WWW-Authenticate': 'Bearer' });
  }
}

export class ForbiddenError extends HttpError {
  readonly status = 403;
  constructor() {
    super('Forbidden');
  }
}

export class NotFoundError extends HttpError {
  readonly status = 404;
  constructor(options?: { cause?: unknown }) {
    super('Not Found', {}, options);
  }
}

export class MethodNotAllowedError extends HttpError {
  readonly status = 405;
  constructor(allow: string) {
    super('Method Not Allowed', { Allow: allow });
  }
}

/** The request head did not arrive in time (Node's HTTP parser, answered raw). */
export class RequestTimeoutError extends HttpError {
  readonly status = 408;
  constructor() {
    super('Request Timeout');
  }
}

export class PreconditionFailedError extends HttpError {
  readonly status = 412;
  constructor() {
    super('Precondition Failed');
  }
}

export class RangeNotSatisfiableError extends HttpError {
  readonly status = 416;
  constructor(size: number) {
    super('Range Not Satisfiable', { 'Content-Range': `bytes */${size}` });
  }
}

/** An `Expect` the server cannot meet (anything but `100-continue`, RFC 9110 §10.1.1). */
export class ExpectationFailedError extends HttpError {
  readonly status = 417;
  constructor() {
    super('Expectation Failed');
  }
}

/**
 * The request head exceeded Node's header size limit (answered raw, before the core), or
 * carries more header fields than the core accepts.
 */
export class HeaderFieldsTooLargeError extends HttpError {
  readonly status = 431;
  constructor() {
    super('Request Header Fields Too Large');
  }
}

/** `Retry-After`, the one spelling of the name (CORS exposes it from here). */
export const RETRY_AFTER = 'Retry-After';

/**
 * The one place `Retry-After` is formed: whole seconds, at least 1 (a 0 or a fraction would
 * invite a retry storm or be ignored by clients that parse integers only).
 */
export function retryAfterHeader(seconds: number): Record<string, string> {
  return { [RETRY_AFTER]: String(Math.max(1, Math.ceil(seconds))) };
}

export class TooManyRequestsError extends HttpError {
  readonly status = 429;
  constructor(retryAfterS: number) {
    super('Too Many Requests', retryAfterHeader(retryAfterS));
  }
}

export class InternalServerError extends HttpError {
  readonly status = 500;
  constructor(options?: { cause?: unknown }) {
    super('Internal Server Error', {}, options);
  }
}

export class ServiceUnavailableError extends HttpError {
  readonly status = 503;
  /**
   * `retryAfterS`: when a retry can succeed, sent as `Retry-After` (whole seconds, >= 1).
   * Required: a 503 always tells the client when to come back.
   */
  constructor(options: { cause?: unknown; retryAfterS: number }) {
    super('Service Unavailable', retryAfterHeader(options.retryAfterS), options);
  }
}

/**
 * The JSON error record (docs/behaviour.md), as response body text: the one place it is built,
 * for the core's error answers (those of the Koa app's routes included), the raw answers to
 * parser errors and the admin listener alike.
 */
export function errorBody(error: HttpError): string {
  return jsonText({ error: { code: error.status, message: error.message } });
}
