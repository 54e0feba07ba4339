/**
 * One embedded replica on a real socket (port 0), built by `buildReplica` exactly as
 * `npm start` builds it (block cache, metrics, warmer, store probe, directory ingest, viewer)
 * over a temp data directory and a temp key file. Nothing is mocked; tests talk HTTP to it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import { loadConfig } from '../../src/config';
import { hashApiKey } from '../../src/domain/key-registry';
import { type KeyRegistryData } from '../../src/domain/key-records';
import { createSilentLogger } from '../../src/logger';
import { inject, type InjectResponse } from '../../src/http/inject';
import type { ReplicaOverrides } from '../../src/wiring/overrides';
import { buildReplica, type Replica } from '../../src/wiring/replica';

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
  readonly root: string;
  readonly dataDir: string;
  readonly keysFile: string;
  readonly replica: Replica;
  /** Writes an archive atomically (temp name + rename) as a producer would. */
  publish(timestamp: string, bytes: Buffer): Promise<void>;
  /** Waits until `timestamp` is listed (polls the catalog); resolves with the wait in ms. */
  waitForListed(timestamp: string, timeoutMs?: number): Promise<number>;
  catalogTimestamps(): readonly string[];
  /**
   * Answers a request in-process through the replica's core and answer writer (no socket),
   * with the `Host` a client of `baseUrl` would send unless `headers` names one.
   */
  inject(path: string, options?: InjectOptions): Promise<InjectResponse>;
  stop(): Promise<void>;
}

/** Options of `EmbeddedApi.inject`: as the raw HTTP client's, without a socket. */
export interface InjectOptions {
  readonly method?: string;
  readonly headers?: Record<string, string | string[]> | readonly (readonly [string, string])[];
  readonly httpVersion?: '1.0' | '1.1' | '2.0';
  readonly remoteAddress?: string;
}

/** `inject` through a replica's core and writer: every answer but a page's (pages need the server). */
export async function injectInto(
  replica: Pick<Replica, 'core' | 'writer' | 'port'>,
  path: string,
  options: InjectOptions = {},
): Promise<InjectResponse> {
  const given = options.headers ?? {};
  const lines = Array.isArray(given)
    ? [...(given as readonly (readonly [string, string])[])]
    : Object.entries(given).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value]).map((v) => [name, v] as const),
      );
  if (!lines.some(([name]) => name.toLowerCase() === 'host'))
    lines.unshift(['Host', `127.0.0.1:${replica.port}`]);
  const res = await inject(replica.core, replica.writer, { ...options, url: path, headers: lines });
  if (res === undefined) throw new Error(`${path} is a page: the Koa app serves it (a socket)`);
  return res;
}

export interface EmbeddedApiOptions extends ReplicaOverrides {
  /** Default per-key limit (the `limited` key keeps its own limit of 3). */
  readonly rateLimit?: number;
  /** Rate-limit window in seconds (default 60). */
  readonly windowS?: number;
  readonly corsOrigins?: string[];
  readonly retentionS?: number;
  readonly staleAfterS?: number;
  /** Trust one proxy hop (X-Forwarded-*), as replicas behind nginx do. */
  readonly trustProxy?: boolean;
  /** Further environment (names of src/config.ts), applied last. */
  readonly env?: Record<string, string>;
  /** Writes files into the temp root (`data/` exists) before the replica starts. */
  readonly prepare?: (root: string, dataDir: string) => Promise<void>;
}

export async function startEmbeddedApi(options: EmbeddedApiOptions = {}): Promise<EmbeddedApi> {
  const {
    rateLimit,
    windowS,
    corsOrigins,
    retentionS,
    staleAfterS,
    trustProxy,
    env,
    prepare,
    ...overrides
  } = options;
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-api-'));
  const dataDir = path.join(root, 'data');
  const keysFile = path.join(root, 'keys.json');
  await fs.mkdir(dataDir);
  await writeKeyFile(keysFile, registryData());
  await prepare?.(root, dataDir);
  const config = loadConfig(
    {
      HOST: '127.0.0.1',
      PORT: '0',
      ADMIN_PORT: '0',
      RADAR_DATA_DIR: dataDir,
      RADAR_KEYS_FILE: keysFile,
      RADAR_SIMULATE: '0',
      RADAR_RATE_LIMIT: String(rateLimit ?? 1000),
      RADAR_RATE_WINDOW_S: String(windowS ?? 60),
      RADAR_CORS_ORIGINS: (corsOrigins ?? ['*']).join(','),
      RADAR_RETENTION_S: String(retentionS ?? 10 * 365 * 86400),
      RADAR_STALE_AFTER_S: String(staleAfterS ?? 600),
      RADAR_TRUST_PROXY: trustProxy ? '1' : '0',
      RADAR_DRAIN_S: '1',
      LOG_LEVEL: 'silent',
      ...env,
    },
    root,
  );
  const replica = await buildReplica(config, {
    logger: createSilentLogger(),
    keysPollMs: 100,
    watchIntervalMs: 100,
    ...overrides,
  });
  const catalog = replica.ports.catalog;

  return {
    baseUrl: `http://127.0.0.1:${replica.port}`,
    root,
    dataDir,
    keysFile,
    replica,
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
    inject: (path, injectOptions) => injectInto(replica, path, injectOptions),
    async stop() {
      await replica.shutdown();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

/** An embedded API that already lists one archive: the usual start of an HTTP test file. */
export async function startEmbeddedApiWith(
  timestamp: string,
  bytes: Buffer,
  options: EmbeddedApiOptions = {},
): Promise<EmbeddedApi> {
  const api = await startEmbeddedApi(options);
  await api.publish(timestamp, bytes);
  await api.waitForListed(timestamp);
  return api;
}
