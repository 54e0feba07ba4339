/**
 * The embedded API with the viewer mounted, as `bin/api.ts` wires it: `createApp` with the
 * embedded adapters and `extraRoutes: createViewerRoutes(...)`, on a real socket. The rate
 * window is configurable so client tests can watch a real 429 window reopen in a second.
 * Keys and apps are the harness's (`KEYS`, `APPS` of embedded-api.ts).
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createFileKeyStore } from '../../src/adapters/file-key-store';
import { createFsArchiveSource, createFsArchiveStore } from '../../src/adapters/fs-archive-store';
import { writeKeyFile } from '../../src/adapters/key-file';
import { createMemoryCatalog } from '../../src/adapters/memory-catalog';
import { createMemoryRateLimiter } from '../../src/adapters/memory-rate-limiter';
import { createHealthCheck } from '../../src/domain/health';
import { createStatusDocumentSource } from '../../src/domain/status-document';
import { formatTimestamp } from '../../src/domain/timestamps';
import { createApp } from '../../src/http/app';
import { createHttpServer } from '../../src/http/http-server';
import { createDirectoryWatcher } from '../../src/ingest/directory-watcher';
import { createIngestCycle } from '../../src/ingest/ingest-cycle';
import { createSilentLogger } from '../../src/logger';
import { createRenderPool } from '../../src/sim/render-pool';
import { createStoreProbe } from '../../src/store-probe';
import { createViewerRoutes, type ViewerDemoCredentials } from '../../src/viewer/viewer-routes';
import { registryData } from './embedded-api';

export interface ViewerApiOptions {
  /** Default per-key limit (the harness's `limited` key keeps its own limit of 3). */
  readonly rateLimit?: number;
  /** Rate-limit window in seconds (default 60). */
  readonly windowS?: number;
  /** Built viewer directory; without it `/viewer/` answers 503. */
  readonly assetsDir?: string;
  /** Credentials the page is pre-filled with (embedded mode's demo). */
  readonly demo?: ViewerDemoCredentials;
}

export interface ViewerApi {
  readonly baseUrl: string;
  /** Writes an archive atomically (temp name + rename) as a producer would. */
  publish(timestamp: string, bytes: Buffer): Promise<void>;
  /** Waits until every timestamp is listed. */
  waitForListed(timestamps: readonly string[], timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startViewerApi(options: ViewerApiOptions = {}): Promise<ViewerApi> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-viewer-api-'));
  const dataDir = path.join(root, 'data');
  const keysFile = path.join(root, 'keys.json');
  await fs.mkdir(dataDir);
  await writeKeyFile(keysFile, registryData());
  const logger = createSilentLogger();

  const catalog = createMemoryCatalog();
  const store = createFsArchiveStore(dataDir);
  const keys = await createFileKeyStore({
    file: keysFile,
    defaultLimit: options.rateLimit ?? 1000,
    logger,
    pollMs: 100,
  });
  const probe = createStoreProbe(store, logger);
  const statusDocument = createStatusDocumentSource({
    catalog,
    healthy: createHealthCheck({ catalog, storeReachable: probe.reachable, staleAfterS: 600 }),
  });
  const cycle = createIngestCycle({
    source: createFsArchiveSource(dataDir),
    catalog,
    logger,
    retentionS: 10 * 365 * 86400,
  });
  const watcher = createDirectoryWatcher({ dir: dataDir, cycle, logger, intervalMs: 100 });
  await watcher.start();

  const app = createApp({
    logger,
    catalog,
    store,
    keys,
    limiter: createMemoryRateLimiter(options.windowS ?? 60),
    statusDocument,
    corsOrigins: ['*'],
    cacheControl: 'private',
    extraRoutes: createViewerRoutes({ assetsDir: options.assetsDir, demo: options.demo }),
  });
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async publish(timestamp, bytes) {
      const temp = path.join(dataDir, `.${timestamp}.pmtiles.tmp`);
      await fs.writeFile(temp, bytes);
      await fs.rename(temp, path.join(dataDir, `${timestamp}.pmtiles`));
    },
    async waitForListed(timestamps, timeoutMs = 5000) {
      const started = Date.now();
      while (!timestamps.every((t) => catalog.current().get(t))) {
        if (Date.now() - started > timeoutMs)
          throw new Error(`frames not listed within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      await watcher.stop();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await keys.close();
      await store.close();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

/** The `count` most recent even minutes up to now, newest first (the simulator's cadence). */
export function recentTimestamps(count: number, nowMs: number = Date.now()): string[] {
  const step = 2 * 60_000;
  const newest = Math.floor(nowMs / step) * step;
  return Array.from({ length: count }, (_, i) => formatTimestamp(newest - i * step));
}

/**
 * Publishes `count` real radar frames rendered by the simulator (PNG tiles of the NWS palette,
 * zooms 0..maxZoom) ending now; resolves with their timestamps, newest first, once listed.
 * Rendering runs in the simulator's worker pool: inside jest's module sandbox the renderer's
 * hot loops run about fifty times slower than in a plain worker thread.
 */
export async function publishRadarFrames(
  api: ViewerApi,
  count: number,
  maxZoom = 6,
): Promise<string[]> {
  const pool = createRenderPool({ maxZoom, size: 2 });
  const timestamps = recentTimestamps(count);
  try {
    await Promise.all(
      timestamps.map(async (timestamp) => api.publish(timestamp, await pool.render(timestamp))),
    );
  } finally {
    await pool.close();
  }
  await api.waitForListed(timestamps);
  return timestamps;
}
