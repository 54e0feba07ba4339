/**
 * A real replica for hostile-input and security tests: `startApiServer` (the function
 * `npm start` runs, with its real `http.Server`, timeouts and adapters) in embedded mode over a
 * temp directory, with spies on three ports of the running replica: every `openRange` the
 * HTTP layer asks of the archive store, every rate-limit `consume` and every key-store
 * `authenticate`. A spy wraps the port's method on the very object the app calls; nothing
 * is mocked and every call goes through to the real adapter.
 *
 * Sentinels: files that must never be served sit inside the data directory (a corrupt archive
 * with a valid name, a far-future archive, names outside the `{YYYYMMDDHHmm}.pmtiles` scheme)
 * and beside it (a secret next to the data directory and the key file). Each holds
 * `sentinel`; no response body may ever contain it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeKeyFile } from '../../../src/adapters/fs/key-file';
import { startApiServer, type RunningApi } from '../../../src/api-server';
import { loadConfig } from '../../../src/config';
import type { ArchiveStore, KeyStore, RateLimiter } from '../../../src/domain/ports';
import { createSilentLogger } from '../../../src/logger';
import { writePmtiles } from '../../../src/pmtiles/writer';
import { buildArchive, pyramid } from '../../fixtures/archives';
import { registryData } from '../../harness/embedded-api';

/** Published: a small archive (one cache block) and one past the cache's streaming threshold. */
export const SMALL_TS = '202601151200';
export const LARGE_TS = '202601151202';
/** Valid names present in the data directory whose content must never be served. */
export const CORRUPT_TS = '202601151204';
export const FUTURE_TS = '209901010000';
/** Valid calendar minute with no file at all. */
export const ABSENT_TS = '202601151206';

/** Error messages by status: SPEC.md's, else the RFC 9110 / RFC 6585 reason phrase. */
export const ERROR_MESSAGES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The exact error record body for a status. */
export function errorRecordText(status: number): string {
  return JSON.stringify({ error: { code: status, message: ERROR_MESSAGES[status] } });
}

export interface StoreCall {
  readonly timestamp: string;
  readonly offset: number;
  readonly length: number;
}

export interface HostileApi {
  readonly port: number;
  readonly baseUrl: string;
  readonly running: RunningApi;
  readonly dataDir: string;
  /** Published archives by timestamp. */
  readonly archives: ReadonlyMap<string, Buffer>;
  /** Published archives by the ETag the replica serves. */
  readonly byEtag: ReadonlyMap<string, Buffer>;
  /** Bytes that must never appear in a response. */
  readonly sentinel: Buffer;
  readonly storeCalls: StoreCall[];
  /** Key ids charged a rate-limit point. */
  readonly limiterCalls: string[];
  /** Number of key-store lookups. */
  authCalls: number;
  /** Clears the spy records. */
  resetSpies(): void;
  stop(): Promise<void>;
}

/** The larger archive: 341 tiles of 2000 bytes (~680 KiB), so whole reads stream past the cache. */
function largeArchive(timestamp: string): Buffer {
  return writePmtiles(pyramid(4, 2000), {
    tileType: 'png',
    minZoom: 0,
    maxZoom: 4,
    bounds: [-125, 24, -66, 50],
    center: [-96, 38, 3],
    metadata: { name: 'fuzz-large', timestamp },
  });
}

export async function startHostileApi(
  options: { rateLimit?: number; env?: Record<string, string> } = {},
): Promise<HostileApi> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-hostile-'));
  const dataDir = path.join(root, 'data');
  await fs.mkdir(dataDir);
  const keysFile = path.join(root, 'keys.json');
  await writeKeyFile(keysFile, registryData());

  const sentinel = Buffer.from(`SENTINEL-${randomBytes(12).toString('hex')}-NEVER-SERVED`);
  const secret = Buffer.concat([sentinel, Buffer.alloc(4096, 0x41), sentinel]);
  // Beside the data directory, where a traversal would land.
  for (const name of ['secret', 'secret.pmtiles', `${SMALL_TS}.pmtiles`, 'passwd']) {
    await fs.writeFile(path.join(root, name), secret);
  }
  // Inside it, under names outside the scheme, and valid names that are never published.
  for (const name of [
    'notes.pmtiles',
    '.hidden.pmtiles',
    '20260115120.pmtiles',
    `${SMALL_TS}.pmtiles.bak`,
    'secret',
  ]) {
    await fs.writeFile(path.join(dataDir, name), secret);
  }
  await fs.writeFile(path.join(dataDir, `${CORRUPT_TS}.pmtiles`), secret);
  await fs.writeFile(path.join(dataDir, `${FUTURE_TS}.pmtiles`), buildArchive(FUTURE_TS, 1));

  const archives = new Map<string, Buffer>([
    [SMALL_TS, buildArchive(SMALL_TS, 2)],
    [LARGE_TS, largeArchive(LARGE_TS)],
  ]);
  for (const [ts, bytes] of archives)
    await fs.writeFile(path.join(dataDir, `${ts}.pmtiles`), bytes);

  const config = loadConfig(
    {
      HOST: '127.0.0.1',
      PORT: '0',
      ADMIN_PORT: '0',
      RADAR_DATA_DIR: dataDir,
      RADAR_KEYS_FILE: keysFile,
      RADAR_SIMULATE: '0',
      RADAR_RATE_LIMIT: String(options.rateLimit ?? 1_000_000),
      RADAR_RETENTION_S: String(100 * 365 * 86400),
      RADAR_DRAIN_S: '1',
      LOG_LEVEL: 'silent',
      ...options.env,
    },
    root,
  );
  const running = await startApiServer(config, createSilentLogger());

  const storeCalls: StoreCall[] = [];
  const limiterCalls: string[] = [];
  const api: HostileApi = {
    port: running.port,
    baseUrl: `http://127.0.0.1:${running.port}`,
    running,
    dataDir,
    archives,
    byEtag: new Map(),
    sentinel,
    storeCalls,
    limiterCalls,
    authCalls: 0,
    resetSpies() {
      storeCalls.length = 0;
      limiterCalls.length = 0;
      api.authCalls = 0;
    },
    async stop() {
      await running.shutdown();
      await fs.rm(root, { recursive: true, force: true });
    },
  };

  // Spies on the ports of the running replica (the objects createApp was given).
  const store = running.deps.store as ArchiveStore;
  const openRange = store.openRange.bind(store);
  (store as { openRange: ArchiveStore['openRange'] }).openRange = (meta, window, signal, owner) => {
    storeCalls.push({ timestamp: meta.timestamp, offset: window.offset, length: window.length });
    return openRange(meta, window, signal, owner);
  };
  const limiter = running.deps.limiter as RateLimiter;
  const consume = limiter.consume.bind(limiter);
  (limiter as { consume: RateLimiter['consume'] }).consume = (keyId, limit) => {
    limiterCalls.push(keyId);
    return consume(keyId, limit);
  };
  const keys = running.deps.keys as KeyStore;
  const authenticate = keys.authenticate.bind(keys);
  (keys as { authenticate: KeyStore['authenticate'] }).authenticate = (apiKey, appId) => {
    api.authCalls++;
    return authenticate(apiKey, appId);
  };

  // Wait for the in-process ingest to list both archives, then learn their ETags.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const snapshot = running.deps.catalog.current();
    const metas = [...archives.keys()].map((ts) => snapshot.get(ts));
    if (metas.every((m) => m !== undefined)) {
      for (const meta of metas)
        (api.byEtag as Map<string, Buffer>).set(meta!.etag, archives.get(meta!.timestamp)!);
      break;
    }
    if (Date.now() > deadline) throw new Error('archives not listed within 10 s');
    await new Promise((r) => setTimeout(r, 25));
  }
  // The cache warmer reads the new archives' headers in the background after a publish; let
  // it finish so that per-request spy records only hold what each request caused.
  for (let seen = -1; seen !== storeCalls.length;) {
    seen = storeCalls.length;
    await new Promise((r) => setTimeout(r, 400));
  }
  api.resetSpies();
  return api;
}
