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
