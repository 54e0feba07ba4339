/**
 * The re-validation queue of a replica that ingests for itself (no Redis): the replica that
 * finds an archive corrupt and the ingest cycle that re-validates it are one process.
 */
import type { RevalidationQueue } from '../../domain/ports';

export function createMemoryRevalidationQueue(): RevalidationQueue {
  const pending = new Set<string>();
  return {
    async request(timestamp) {
      pending.add(timestamp);
    },
    async take() {
      const taken = [...pending];
      pending.clear();
      return taken;
    },
  };
}
