/**
 * Starts the real Koa app on a real socket (port 0) with the embedded adapters: a temp data
 * directory of archives, a temp key file, the memory catalog and limiter, and the directory
 * ingest. Nothing is mocked; tests talk HTTP to it.
 */
import type Router from '@koa/router';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFileKeyStore } from '../../src/adapters/fs/key-store';
import { createFsArchiveSource, createFsArchiveStore } from '../../src/adapters/fs/archive-store';
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import { createMemoryCatalog } from '../../src/adapters/memory/catalog';
import { createMemoryRateLimiter } from '../../src/adapters/memory/rate-limiter';
import { hashApiKey, type KeyRegistryData } from '../../src/domain/key-registry';
import { createHealthCheck } from '../../src/domain/health';
import { createStatusDocumentSource } from '../../src/domain/status-document';
import { createApp } from '../../src/http/app';
import { createHttpServer } from '../../src/http/http-server';
import { createDirectoryWatcher } from '../../src/adapters/fs/directory-watcher';
import { createIngestCycle } from '../../src/ingest/ingest-cycle';
import { createSilentLogger } from '../../src/logger';
import { createStoreProbe } from '../../src/store-probe';

export const KEYS = {
  good: 'rk_good-key-0123456789',
  limited: 'rk_limited-key-0123456789',
  disabled: 'rk_disabled-key-0123456789',
  unbound: 'rk_unbound-key-0123456789',
} as const;

export const APPS = {
  web: 'acme-web',
  mobile: 'acme-mobile',
  off: 'acme-off',
  other: 'other-app',
} as const;

export function registryData(): KeyRegistryData {
  return {
    apps: [
      { id: APPS.web, disabled: false },
      { id: APPS.mobile, disabled: false },
      { id: APPS.off, disabled: true },
      { id: APPS.other, disabled: false },
    ],
    keys: [
      { id: 'good', sha256: hashApiKey(KEYS.good), apps: [APPS.web, APPS.off], disabled: false },
      {
        id: 'limited',
        sha256: hashApiKey(KEYS.limited),
        apps: [APPS.web],
        limit: 3,
        disabled: false,
      },
      { id: 'disabled', sha256: hashApiKey(KEYS.disabled), apps: [APPS.web], disabled: true },
      { id: 'unbound', sha256: hashApiKey(KEYS.unbound), apps: [APPS.mobile], disabled: false },
    ],
  };
}

/** `Authorization` and `X-App` headers for a key and app. */
export function auth(key: string = KEYS.good, app: string = APPS.web): Record<string, string> {
  return { Authorization: `Bearer ${key}`, 'X-App': `Bearer ${app}` };
}

export interface EmbeddedApi {
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly keysFile: string;
  /** Writes an archive atomically (temp name + rename) as a producer would. */
  publish(timestamp: string, bytes: Buffer): Promise<void>;
  /** Waits until `timestamp` is listed (polls the catalog). */
  waitForListed(timestamp: string, timeoutMs?: number): Promise<number>;
  catalogTimestamps(): readonly string[];
  stop(): Promise<void>;
}

export interface EmbeddedApiOptions {
  /** Default per-key limit (the `limited` key keeps its own limit of 3). */
  readonly rateLimit?: number;
  /** Rate-limit window in seconds (default 60). */
  readonly windowS?: number;
  readonly corsOrigins?: string[];
  readonly retentionS?: number;
  readonly staleAfterS?: number;
  /** Routes mounted before the API, as a replica mounts the viewer. */
  readonly extraRoutes?: Router;
  /** Trust one proxy hop (X-Forwarded-*), as replicas behind nginx do. */
  readonly trustProxy?: boolean;
}

export async function startEmbeddedApi(options: EmbeddedApiOptions = {}): Promise<EmbeddedApi> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-api-'));
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
  const limiter = createMemoryRateLimiter(options.windowS ?? 60);
  const probe = createStoreProbe(store, logger);
  const statusDocument = createStatusDocumentSource({
    catalog,
    healthy: createHealthCheck({
      catalog,
      storeReachable: probe.reachable,
      staleAfterS: options.staleAfterS ?? 600,
    }),
  });
  const cycle = createIngestCycle({
    source: createFsArchiveSource(dataDir),
    catalog,
    logger,
    retentionS: options.retentionS ?? 10 * 365 * 86400,
  });
  const watcher = createDirectoryWatcher({ dir: dataDir, cycle, logger, intervalMs: 100 });
  await watcher.start();

  const app = createApp({
    logger,
    catalog,
    store,
    keys,
    limiter,
    statusDocument,
    corsOrigins: options.corsOrigins ?? ['*'],
    cacheControl: 'private',
    extraRoutes: options.extraRoutes,
    trustProxy: options.trustProxy,
  });
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir,
    keysFile,
    async publish(timestamp, bytes) {
      const temp = path.join(dataDir, `.${timestamp}.pmtiles.tmp`);
      await fs.writeFile(temp, bytes);
      await fs.rename(temp, path.join(dataDir, `${timestamp}.pmtiles`));
    },
    async waitForListed(timestamp, timeoutMs = 5000) {
      const started = Date.now();
      while (!catalog.current().get(timestamp)) {
        if (Date.now() - started > timeoutMs)
          throw new Error(`${timestamp} not listed within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return Date.now() - started;
    },
    catalogTimestamps: () => catalog.current().timestamps,
    async stop() {
      await watcher.stop();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await keys.close();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}
