/**
 * The request as the core reads it: method, target, headers, protocol version and the client
 * address, with no socket and no framework. The node:http listener makes one from an
 * `IncomingMessage`; in-process tests make one from plain data, so every HTTP decision can be
 * tested without a server.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface CoreRequest {
  readonly method: string;
  /** The request-target as received (path and query). */
  readonly target: string;
  /** Header fields by lower-case name (Node's joining rules for repeats). */
  readonly headers: IncomingHttpHeaders;
  /** Header lines as received, `[name, value, name, value, ...]` (repeats kept apart). */
  readonly rawHeaders: readonly string[];
  readonly httpVersionMajor: number;
  readonly httpVersionMinor: number;
  /** The client's address (behind a trusted proxy, the last `X-Forwarded-For` hop). */
  clientAddress(): string;
  /**
   * Aborted when the client goes away before its answer is complete: store reads opened for
   * the answer are cancelled with it. Made on first use (most answers never need one).
   */
  signal(): AbortSignal;
  /** True once the client has gone (its connection closed before the answer was written). */
  gone(): boolean;
}

/**
 * The client address as a proxy-aware server reads it: with one trusted proxy in front
 * (`RADAR_TRUST_PROXY`), the last `X-Forwarded-For` hop, which that proxy appended; otherwise
 * the socket's peer.
 */
export function clientAddressOf(
  headers: IncomingHttpHeaders,
  remoteAddress: string | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const forwarded = headers['x-forwarded-for'];
    if (typeof forwarded === 'string') {
      const comma = forwarded.lastIndexOf(',');
      const last = (comma < 0 ? forwarded : forwarded.slice(comma + 1)).trim();
      if (last !== '') return last;
    }
  }
  return remoteAddress ?? '';
}
