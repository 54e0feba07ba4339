/**
 * What a replica does when a published archive turns out corrupt while serving (a leaf
 * directory that does not decode, an entry pointing outside the archive): counts each finding
 * by reason, logs it and asks ingest to re-validate the archive, at most once per archive
 * version per `REPORT_INTERVAL_MS`, so a corrupt archive under load costs one log line and one
 * queue write per interval rather than one per request.
 */
import { Counter, type Registry } from 'prom-client';
import { ARCHIVE_FORMAT_REASONS, type ArchiveFormatReason } from '../domain/archive-errors';
import type { ArchiveMeta, RevalidationQueue } from '../domain/ports';
import type { Logger } from '../logger';
import { zeroed } from './registry';

/** Least time between two reports of one archive version (ingest passes run every few s). */
export const REPORT_INTERVAL_MS = 10_000;
/** Versions remembered for the interval; past this the memory starts over (a report more). */
const REMEMBERED_VERSIONS = 1024;

export function archiveFormatReports(
  registry: Registry,
  queue: RevalidationQueue,
  logger: Logger,
  now: () => number = Date.now,
): (meta: ArchiveMeta, reason: ArchiveFormatReason) => void {
  const found = zeroed(
    new Counter({
      name: 'radar_archive_format_errors_total',
      help: 'Published archives found unreadable as PMTiles while serving (answered 503 and reported for re-validation), by reason.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    ARCHIVE_FORMAT_REASONS,
  );
  const reportedAt = new Map<string, number>();
  return (meta, reason) => {
    found.inc({ reason });
    const version = `${meta.timestamp}\0${meta.etag}`;
    const at = now();
    const last = reportedAt.get(version);
    if (last !== undefined && at - last < REPORT_INTERVAL_MS) return;
    if (reportedAt.size >= REMEMBERED_VERSIONS) reportedAt.clear();
    reportedAt.set(version, at);
    const { timestamp } = meta;
    logger.warn(
      { timestamp, etag: meta.etag, reason },
      'published archive is corrupt; reported for re-validation',
    );
    queue
      .request(timestamp)
      .catch((err: unknown) =>
        logger.warn(
          { timestamp, err: (err as Error).message },
          'could not report the archive for re-validation; reported again at a later corrupt read',
        ),
      );
  };
}
