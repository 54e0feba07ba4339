/** Opens the archive ports of the backend the configuration names (fs or S3). */
import type { ArchivesBackend, Config } from '../config';
import type { Logger } from '../logger';
import type { ArchivesWiring } from './archives';
import { fsArchives } from './fs';
import { s3Archives } from './s3';

export function openArchives(
  backend: ArchivesBackend,
  config: Config,
  logger: Logger,
  options: { readonly timeoutMs?: number } = {},
): ArchivesWiring {
  return backend.kind === 's3'
    ? s3Archives(backend, config, logger, options)
    : fsArchives(backend.dir);
}
