/**
 * The one place tests make radar timestamps (`YYYYMMDDHHmm`): recent even minutes, the
 * simulator's cadence, formatted by the production `formatTimestamp` so tests and service agree.
 * Recent, because ingest drops archives older than the retention window.
 */
import { formatTimestamp } from '../../src/domain/timestamps';

/** The simulator's cadence: one frame every two minutes. */
export const CADENCE_MS = 120_000;

/** The timestamp `stepsBack` cadence steps before now's even minute (0: the current one). */
export function recentTimestamp(stepsBack = 0, nowMs: number = Date.now()): string {
  return formatTimestamp((Math.floor(nowMs / CADENCE_MS) - stepsBack) * CADENCE_MS);
}

/** `count` timestamps one cadence step apart, newest first, starting `offset` steps back. */
export function recentTimestamps(count: number, offset = 0, nowMs: number = Date.now()): string[] {
  return Array.from({ length: count }, (_, i) => recentTimestamp(offset + i, nowMs));
}
