/**
 * The contract between the bench orchestrator and the load-generator process: what to send
 * (per-connection request sequences, so each virtual client walks its own plan) and what
 * comes back (counts, latency percentiles in milliseconds with microsecond resolution).
 */

/** One request of a sequence. */
export interface PlannedRequest {
  readonly path: string;
  /** `Range` header value, e.g. `bytes=0-16383`. */
  readonly range?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface LoadJob {
  readonly label: string;
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  readonly connections: number;
  /** Measured duration in seconds (ignored when `amount` is set and reached first). */
  readonly durationS: number;
  /** Stop after this many responses (bounded runs); 0: duration only. */
  readonly amount?: number;
  /** Headers sent with every request (credentials). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Request sequences; connection i walks `sequences[i % sequences.length]` from a rotating
   * start and loops over it, so connections do not march in lockstep.
   */
  readonly sequences: readonly (readonly PlannedRequest[])[];
  /** Statuses that count as success; anything else is an error. */
  readonly expect: readonly number[];
  /** Per-request timeout, seconds. */
  readonly timeoutS?: number;
}

export interface LatencyMs {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  readonly mean: number;
}

export interface LoadResult {
  readonly label: string;
  readonly durationS: number;
  readonly responses: number;
  readonly rps: number;
  readonly latencyMs: LatencyMs;
  /** Response bytes on the wire (headers and body) per second, MB (10^6). */
  readonly mbPerS: number;
  readonly statusCounts: Readonly<Record<string, number>>;
  /** Responses with an unexpected status plus socket errors and timeouts. */
  readonly errors: number;
  readonly socketErrors: number;
  /** Socket errors by code (ECONNRESET, ...). */
  readonly errorCodes?: Readonly<Record<string, number>>;
  readonly timeouts: number;
}

/** Messages over the IPC channel. */
export type ToGenerator = { type: 'run'; id: number; job: LoadJob } | { type: 'exit' };
export type FromGenerator =
  | { type: 'ready' }
  | { type: 'result'; id: number; result: LoadResult }
  | { type: 'error'; id: number; message: string };
