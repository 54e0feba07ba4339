/**
 * Sampled logging of 5xx causes. One failing dependency can fail every request; a line with a
 * full stack per request (hundreds per second) drowns the logs and costs the CPU the replica
 * needs to recover. Each kind of cause (status, error name, error code) is logged in full the
 * first time, then at most once per `intervalMs`, carrying how many of that kind were left
 * unlogged since the previous line. Causes already reported at their source
 * (`StoreUnavailableError` with `alreadyReported`, e.g. breaker fast-fails, logged once per
 * state change) write no
 * line at all. Metrics still count every request.
 */
import { StoreUnavailableError } from '../../domain/archive-errors';
import type { Logger } from '../../logger';

export interface ErrorLogSampler {
  /** Logs `cause` of a `status` answer, or counts it toward the next line of its kind. */
  report(status: number, cause: unknown, context: Record<string, unknown>): void;
}

export interface ErrorLogSamplerOptions {
  readonly logger: Logger;
  /** Least time between two lines of one kind; default 10 s. */
  readonly intervalMs?: number;
  readonly now?: () => number;
}

/** Kinds remembered at once; past this the memory starts over (kinds are few in practice). */
const MAX_KINDS = 256;

function kindOf(status: number, cause: unknown): string {
  const name = cause instanceof Error ? cause.name : typeof cause;
  const code = (cause as { code?: unknown } | null)?.code;
  return `${status}:${name}:${typeof code === 'string' || typeof code === 'number' ? code : ''}`;
}

export function createErrorLogSampler(options: ErrorLogSamplerOptions): ErrorLogSampler {
  const intervalMs = options.intervalMs ?? 10_000;
  const now = options.now ?? Date.now;
  const kinds = new Map<string, { loggedAt: number; suppressed: number }>();
  return {
    report(status, cause, context) {
      if (cause instanceof StoreUnavailableError && cause.alreadyReported) return;
      const kind = kindOf(status, cause);
      const seen = kinds.get(kind);
      const at = now();
      if (seen && at - seen.loggedAt < intervalMs) {
        seen.suppressed += 1;
        return;
      }
      if (!seen && kinds.size >= MAX_KINDS) kinds.clear();
      const suppressed = seen?.suppressed ?? 0;
      kinds.set(kind, { loggedAt: at, suppressed: 0 });
      options.logger.error(
        { ...context, err: cause, status, ...(suppressed > 0 ? { suppressed } : {}) },
        suppressed > 0
          ? `request failed (${suppressed} more of this kind since the last line)`
          : 'request failed',
      );
    },
  };
}
