/** Opens the archive ports of the backend the configuration names (fs or S3). */
import type { ArchivesBackend } from '../config';
import type { Logger } from '../logger';
import type { ArchivesWiring } from './archives';
import { fsArchives } from './fs';
import { s3Archives, type ArchivesOptions } from './s3';

export function openArchives(
  backend: ArchivesBackend,
  logger: Logger,
  options: ArchivesOptions = {},
): ArchivesWiring {
  return backend.kind === 's3' ? s3Archives(backend, logger, options) : fsArchives(backend.dir);
}

/** The first-byte limit of an upload at the least: a whole archive takes longer than a range read. */
const UPLOAD_MIN_TIMEOUT_MS = 10_000;

/**
 * The archive ports of a producer, which uploads whole archives: as {@link openArchives}, with
 * S3 requests given at least {@link UPLOAD_MIN_TIMEOUT_MS} to the first byte.
 */
export function openUploadArchives(backend: ArchivesBackend, logger: Logger): ArchivesWiring {
  return backend.kind === 's3'
    ? openArchives(backend, logger, {
        timeoutMs: Math.max(backend.timeoutMs, UPLOAD_MIN_TIMEOUT_MS),
      })
    : openArchives(backend, logger);
}
