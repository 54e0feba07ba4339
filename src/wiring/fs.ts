/**
 * File-system wiring: archives in the data directory (store, source, frame sink), the key file
 * (reloaded on change) and the directory watcher that drives in-process ingest.
 */
import fs from 'node:fs/promises';
import { createFsArchiveSource, createFsArchiveStore } from '../adapters/fs/archive-store';
import { createDirectoryWatcher } from '../adapters/fs/directory-watcher';
import { createDirectorySink } from '../adapters/fs/frame-sink';
import type { IngestCycle } from '../ingest/ingest-cycle';
import type { Logger } from '../logger';
import { closer, type Component } from './component';
import type { ArchivesWiring } from './archives';

export function fsArchives(dir: string): ArchivesWiring {
  return {
    describe: dir,
    prepare: async () => {
      await fs.mkdir(dir, { recursive: true });
    },
    store: () => createFsArchiveStore(dir),
    source: () => createFsArchiveSource(dir),
    frameSink: () => createDirectorySink(dir),
    breakerOpen: () => false,
    connections: closer('fs', () => {}),
  };
}

/** Runs the ingest cycle when the data directory changes (embedded mode's ingest). */
export function directoryIngest(
  dir: string,
  cycle: IngestCycle,
  logger: Logger,
  intervalMs?: number,
): Component {
  const watcher = createDirectoryWatcher({ dir, cycle, logger, intervalMs });
  return { name: 'ingest', start: () => watcher.start(), stop: () => watcher.stop() };
}
