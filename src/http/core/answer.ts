/**
 * What the core decides for a request: status, the route's own headers and the body. The
 * headers every response shares (request id, `nosniff`, `Vary`, CORS, `X-RateLimit-*`,
 * `Content-Length`, `Connection` while draining) are not part of it: the answer writer
 * (`http/answer-writer.ts`) adds them, in one place, from what the answer carries (its caller,
 * its rate decision, whether it is a preflight).
 */
import type { Readable } from 'node:stream';
import type { RateDecision } from '../../domain/ports';
import { errorBody, type HttpError } from '../../errors';
import type { Caller } from './authorise';

export interface Answer {
  readonly status: number;
  /** Route template that answered (a metric label), or `UNMATCHED_ROUTE`. */
  readonly route: string;
  /** The route's own headers as flat `[name, value, ...]` pairs. */
  readonly headers: readonly string[];
  /** Request headers the representation varies on, besides `Origin` (e.g. `Accept-Encoding`). */
  readonly vary?: string;
  /** The bytes a GET sends: in memory, or a stream from the store. Absent: no body. */
  readonly body?: Buffer | Readable;
  /** `Content-Length` (the same for GET and HEAD); absent for 204 and 304. */
  readonly length?: number;
  /**
   * The authorised caller, once known (logs, usage). Set by the core on the answer a route
   * returns (every answer is a fresh object, owned by its request), so the hot path copies
   * nothing to add it.
   */
  caller?: Caller;
  /**
   * A 401/403 to a request that named a known key (disabled, app unknown or not bound, origin
   * refused): that key's id, so usage counts the refusal for it. Absent otherwise.
   */
  readonly refusedKey?: string;
  /** The rate decision, once a point was spent: every answer from then on reports it. */
  rate?: RateDecision;
  /** A CORS preflight: the writer adds the preflight headers instead of the actual ones. */
  readonly preflight?: boolean;
  /** The client left before the answer was decided: nothing is written, the socket is cut. */
  readonly abandoned?: boolean;
}

/** Route label of requests no route matched; one shared value keeps cardinality bounded. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The error record of `error` as an answer, keeping what the request had decided so far. */
export function errorAnswer(
  error: HttpError,
  route: string,
  decided: Pick<Answer, 'caller' | 'rate' | 'refusedKey'> = {},
): Answer {
  const body = Buffer.from(errorBody(error));
  const headers: string[] = [];
  for (const name in error.headers) headers.push(name, error.headers[name]!);
  headers.push('Content-Type', 'application/json');
  return {
    status: error.status,
    route,
    headers,
    body,
    length: body.length,
    ...(decided.caller !== undefined ? { caller: decided.caller } : {}),
    ...(decided.rate !== undefined ? { rate: decided.rate } : {}),
    ...(decided.refusedKey !== undefined ? { refusedKey: decided.refusedKey } : {}),
  };
}
