/**
 * Exponential backoff, the one rule of every retry delay: the first retry waits `baseMs`, each
 * later one twice the one before, never more than `maxMs`.
 */

/** The delay before retry `attempt` (1 for the first): `baseMs * 2^(attempt - 1)`, at most `maxMs`. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** (attempt - 1));
}
