/**
 * Per-object retry state of ingest: an object that could not be read is retried after a delay
 * that doubles with each failure (2 s, 4 s, … up to 5 min), so one unreadable object costs a
 * bounded trickle of reads instead of one per pass, and never holds up the others. A new
 * version of the object (other size or ETag) starts afresh. Entries of objects that left the
 * listing are forgotten, so the map is bounded by what the store holds.
 */
import { backoffMs } from '../shared/backoff';
import type { ReadFailureReason } from './read-failure';

/**
 * An object's version (size, ETag and date): what the backoff and the cycles' memory of valid
 * and rejected objects are keyed by, so a rewritten object is read afresh.
 */
export const objectVersion = (o: {
  readonly size: number;
  readonly etag: string;
  readonly lastModified: Date;
}): string => `${o.size}:${o.etag}:${o.lastModified.getTime()}`;

export const BACKOFF_BASE_MS = 2_000;
export const BACKOFF_MAX_MS = 5 * 60_000;

export interface ObjectFailure {
  readonly version: string;
  readonly reason: ReadFailureReason;
  readonly attempts: number;
  readonly retryAtMs: number;
}

export interface ObjectBackoff {
  /** True while `name` at `version` failed and its retry time has not come. */
  waiting(name: string, version: string, nowMs: number): boolean;
  /** Records a failure; returns the new state (attempts counts this one). */
  fail(name: string, version: string, reason: ReadFailureReason, nowMs: number): ObjectFailure;
  /** Forgets `name` after a successful read; returns what it had recorded, if anything. */
  succeed(name: string): ObjectFailure | undefined;
  /** Forgets every name not in `present` (objects that disappeared). */
  retain(present: ReadonlySet<string>): void;
  size(): number;
}

export function createObjectBackoff(): ObjectBackoff {
  const failures = new Map<string, ObjectFailure>();
  return {
    waiting(name, version, nowMs) {
      const failure = failures.get(name);
      return failure !== undefined && failure.version === version && nowMs < failure.retryAtMs;
    },
    fail(name, version, reason, nowMs) {
      const previous = failures.get(name);
      const attempts = previous?.version === version ? previous.attempts + 1 : 1;
      const retryAtMs = nowMs + backoffMs(attempts, BACKOFF_BASE_MS, BACKOFF_MAX_MS);
      const failure = { version, reason, attempts, retryAtMs };
      failures.set(name, failure);
      return failure;
    },
    succeed(name) {
      const previous = failures.get(name);
      failures.delete(name);
      return previous;
    },
    retain(present) {
      for (const name of failures.keys()) if (!present.has(name)) failures.delete(name);
    },
    size: () => failures.size,
  };
}
