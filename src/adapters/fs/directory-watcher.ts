/**
 * Embedded ingest driver: runs the ingest cycle when the data directory changes (fs.watch)
 * and on a short interval as a safety net (watch events can be dropped or coalesced), so a
 * completed archive is listed well within 2 s.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '../../logger';
import { createSerialTrigger } from '../../shared/serial-trigger';

export interface DirectoryWatcher {
  /** Runs a first full pass, then watches. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createDirectoryWatcher(options: {
  readonly dir: string;
  /** The pass to run (the ingest cycle); typed by shape so adapters never import ingest/. */
  readonly cycle: { run(): Promise<void> };
  readonly logger: Logger;
  readonly intervalMs?: number;
}): DirectoryWatcher {
  const { dir, cycle, logger } = options;
  const runner = createSerialTrigger(
    () => cycle.run(),
    (err) => logger.error({ err }, 'ingest pass failed'),
  );
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;

  return {
    async start() {
      runner.trigger();
      await runner.idle();
      watcher = watch(dir, { persistent: false }, () => runner.trigger());
      watcher.on('error', (err) =>
        logger.warn({ err }, 'directory watch failed; polling continues'),
      );
      timer = setInterval(() => runner.trigger(), options.intervalMs ?? 1000);
      timer.unref();
    },
    async stop() {
      watcher?.close();
      if (timer) clearInterval(timer);
      await runner.idle();
    },
  };
}
