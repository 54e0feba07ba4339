/**
 * Index entries refused on the way into a replica's snapshot (junk member, future timestamp,
 * malformed metadata): each is logged and counted once, not at every resync, and logged in a
 * bounded, printable form because the member is attacker- or bug-controlled.
 */
import type { Logger } from '../../logger';
import type { CatalogDropReason } from './catalog-codec';
import type { DroppedEntry } from './catalog-index';

/** Reports the refusals of one read of the index; entries already reported stay quiet. */
export type RefusalReporter = (dropped: readonly DroppedEntry[]) => void;

export function createRefusalReporter(
  logger: Logger,
  onDropped: ((timestamp: string, reason: CatalogDropReason) => void) | undefined,
): RefusalReporter {
  /** Entries refused at the last read. */
  let refused = new Map<string, CatalogDropReason>();
  return (dropped) => {
    const next = new Map<string, CatalogDropReason>();
    for (const { timestamp, reason } of dropped) {
      next.set(timestamp, reason);
      if (refused.get(timestamp) === reason) continue;
      logger.warn(
        { member: JSON.stringify(timestamp.slice(0, 64)), reason },
        'catalog entry refused; not listed until ingest repairs it',
      );
      onDropped?.(timestamp, reason);
    }
    refused = next;
  };
}
