/**
 * The `healthy` flag of the status document (docs/behaviour.md): data fresh enough, catalog in
 * sync with the shared index, and the archive store answering its last probe.
 */
import type { CatalogReader } from './ports';
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

/** Live inputs of the health flag. */
export interface HealthSources {
  readonly catalog: CatalogReader;
  /** Whether the archive store answered its last probe. */
  readonly storeReachable: () => boolean;
  readonly staleAfterS: number;
  readonly now?: () => number;
}

/** The `healthy` flag as a function of the live state, evaluated on each call. */
export function createHealthCheck(sources: HealthSources): () => boolean {
  const now = sources.now ?? Date.now;
  return () =>
    isHealthy({
      latest: sources.catalog.current().timestamps[0],
      nowMs: now(),
      staleAfterS: sources.staleAfterS,
      catalogInSync: sources.catalog.inSync(),
      storeReachable: sources.storeReachable(),
    });
}
