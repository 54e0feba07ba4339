/**
 * The one place real clients and adapters are wired from the configuration. Everything else
 * receives its dependencies as arguments.
 */
import fs from 'node:fs/promises';
import { createFileKeyStore } from './adapters/file-key-store';
import { createFsArchiveSource, createFsArchiveStore } from './adapters/fs-archive-store';
import { createMemoryCatalog } from './adapters/memory-catalog';
import { createMemoryRateLimiter } from './adapters/memory-rate-limiter';
import type { Config } from './config';
import type { ArchiveStore, CatalogReader, KeyStore, RateLimiter } from './domain/ports';
import { createStatusDocumentSource, type StatusDocument } from './domain/status-document';
import { ensureDemoCredentials, type DemoCredentials } from './embedded/demo-credentials';
import { createDirectoryWatcher } from './ingest/directory-watcher';
import { createIngestCycle } from './ingest/ingest-cycle';
import type { Logger } from './logger';
import { createDirectorySink } from './sim/frame-sink';
import { createRenderPool } from './sim/render-pool';
import { createSimulator } from './sim/simulator';
import { createStoreProbe, type StoreProbe } from './store-probe';

/** A piece of background work with a start and an orderly stop. */
export interface Service {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ApiDependencies {
  readonly catalog: CatalogReader;
  readonly store: ArchiveStore;
  readonly keys: KeyStore;
  readonly limiter: RateLimiter;
  readonly probe: StoreProbe;
  readonly statusDocument: () => StatusDocument | undefined;
  /** Started after the listeners, stopped in reverse order before clients close. */
  readonly services: readonly Service[];
  /** Clients and handles, closed last at shutdown. */
  readonly close: () => Promise<void>;
  /** Present in embedded mode when the demo key file is in use. */
  readonly demo: DemoCredentials | undefined;
}

/** Wires the embedded single-process mode: file system, memory catalog and limiter, key file. */
export async function wireEmbedded(config: Config, logger: Logger): Promise<ApiDependencies> {
  if (config.keysFile === undefined) throw new Error('embedded mode needs a key file');
  await fs.mkdir(config.dataDir, { recursive: true });
  const demo = await ensureDemoCredentials(config.keysFile);

  const catalog = createMemoryCatalog();
  const store = createFsArchiveStore(config.dataDir);
  const keys = await createFileKeyStore({ file: config.keysFile, defaultLimit: config.rateLimit, logger });
  const limiter = createMemoryRateLimiter(config.rateWindowS);
  const probe = createStoreProbe(store, logger);

  const statusDocument = createStatusDocumentSource({
    catalog,
    storeReachable: probe.reachable,
    staleAfterS: config.staleAfterS,
  });

  const cycle = createIngestCycle({
    source: createFsArchiveSource(config.dataDir),
    catalog,
    logger: logger.child({ component: 'ingest' }),
    retentionS: config.retentionS,
  });
  const watcher = createDirectoryWatcher({ dir: config.dataDir, cycle, logger });
  const services: Service[] = [
    {
      name: 'store-probe',
      start: async () => {
        await probe.check();
        probe.start();
      },
      stop: async () => probe.stop(),
    },
    { name: 'ingest', start: () => watcher.start(), stop: () => watcher.stop() },
  ];

  if (config.simulate) {
    const pool = createRenderPool({ maxZoom: config.simulator.maxZoom });
    const simulator = createSimulator({
      sink: createDirectorySink(config.dataDir),
      pool,
      logger: logger.child({ component: 'simulator' }),
      cadenceS: config.simulator.cadenceS,
      backfill: config.simulator.backfill,
    });
    services.push({
      name: 'simulator',
      start: async () => {
        void simulator.start();
      },
      stop: async () => {
        await simulator.stop();
        await pool.close();
      },
    });
  }

  return {
    catalog,
    store,
    keys,
    limiter,
    probe,
    statusDocument,
    services,
    demo,
    close: async () => {
      await keys.close();
      await store.close();
    },
  };
}
