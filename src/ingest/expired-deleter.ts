/**
 * Retention's second step: objects whose timestamp left the catalog are deleted from the
 * store, but only `DELETE_GRACE_MS` later, so a replica that still lists the timestamp (its
 * snapshot not yet updated) never loses the bytes under an in-flight read. A failed delete is
 * counted by reason and retried on the next pass; it never fails the pass.
 */
import type { ArchiveSource, StoredObject } from '../domain/ports';
import { parseTimestamp, timestampFromFileName } from '../domain/timestamps';
import type { Logger } from '../logger';
import type { IngestEvents } from './ingest-events';
import { classifyReadFailure, describeReadFailure } from './read-failure';

/** Objects are deleted this long after their timestamp left the catalog (in-flight reads). */
export const DELETE_GRACE_MS = 10 * 60_000;

/** `(objects, cutoffMs)`: deletes the listed objects older than the cutoff and the grace. */
export function createExpiredDeleter(
  source: Pick<ArchiveSource, 'remove'>,
  logger: Logger,
  onReadFailed: IngestEvents['onReadFailed'],
): (objects: readonly StoredObject[], cutoffMs: number) => Promise<void> {
  return async (objects, cutoffMs) => {
    for (const object of objects) {
      const ts = timestampFromFileName(object.name);
      const epochMs = ts === undefined ? undefined : parseTimestamp(ts);
      if (epochMs === undefined || epochMs >= cutoffMs - DELETE_GRACE_MS) continue;
      try {
        await source.remove(object.name);
        logger.info({ object: object.name }, 'expired archive deleted');
      } catch (err) {
        const reason = classifyReadFailure(err);
        logger.warn(
          { object: object.name, reason, err: describeReadFailure(err) },
          'expired archive not deleted; retrying next pass',
        );
        onReadFailed?.(object.name, reason);
      }
    }
  };
}
