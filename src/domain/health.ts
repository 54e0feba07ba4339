/**
 * The `healthy` flag of the status document (DESIGN.md §3.1): data fresh enough, catalog in
 * sync with the shared index, and the archive store answering its last probe.
 */
import { parseTimestamp } from './timestamps';

export interface HealthInputs {
  readonly latest: string | undefined;
  readonly nowMs: number;
  readonly staleAfterS: number;
  readonly catalogInSync: boolean;
  readonly storeReachable: boolean;
}

/** True only when every condition holds. */
export function isHealthy(inputs: HealthInputs): boolean {
  if (!inputs.catalogInSync || !inputs.storeReachable || inputs.latest === undefined) return false;
  const latestMs = parseTimestamp(inputs.latest);
  if (latestMs === undefined) return false;
  return inputs.nowMs - latestMs <= inputs.staleAfterS * 1000;
}
