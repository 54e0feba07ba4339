/**
 * A real replica for hostile-input and security tests: the embedded harness (`buildReplica`,
 * the function `npm start` runs, with its real `http.Server`, timeouts and adapters) over a
 * temp directory, with spies on three ports the HTTP layer is given (`decoratePorts`): every
 * `openRange` it asks of the archive store, every rate-limit `consume` and every key-store
 * `authenticate`. Every call goes through to the real adapter; nothing is mocked.
 *
 * Sentinels: files that must never be served sit inside the data directory (a corrupt archive
 * with a valid name, a far-future archive, names outside the `{YYYYMMDDHHmm}.pmtiles` scheme)
 * and beside it (a secret next to the data directory and the key file). Each holds
 * `sentinel`; no response body may ever contain it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Replica } from '../../../src/wiring/replica';
import { buildArchive, pngPyramidArchive } from '../../fixtures/archives';
import { startEmbeddedApi } from '../embedded-api';

/** Published: a small archive (one cache block) and one past the cache's streaming threshold. */
export const SMALL_TS = '202601151200';
export const LARGE_TS = '202601151202';
/** Valid names present in the data directory whose content must never be served. */
export const CORRUPT_TS = '202601151204';
export const FUTURE_TS = '209901010000';
/** Valid calendar minute with no file at all. */
export const ABSENT_TS = '202601151206';

/** Error messages by status: the RFC 9110 / RFC 6585 reason phrase (docs/behaviour.md). */
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
  return `${JSON.stringify({ error: { code: status, message: ERROR_MESSAGES[status] } })}\n`;
}

export interface StoreCall {
  readonly timestamp: string;
  readonly offset: number;
  readonly length: number;
}

export interface HostileApi {
  readonly port: number;
  readonly baseUrl: string;
  readonly running: Replica;
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
  readonly authCalls: number;
  /** Clears the spy records. */
  resetSpies(): void;
  stop(): Promise<void>;
}

/** The larger archive: 341 tiles of 2000 bytes (~680 KiB), so whole reads stream past the cache. */
function largeArchive(timestamp: string): Buffer {
  return pngPyramidArchive(timestamp, 4, 2000, 'fuzz-large');
}

export async function startHostileApi(
  options: { rateLimit?: number; env?: Record<string, string> } = {},
): Promise<HostileApi> {
  const sentinel = Buffer.from(`SENTINEL-${randomBytes(12).toString('hex')}-NEVER-SERVED`);
  const secret = Buffer.concat([sentinel, Buffer.alloc(4096, 0x41), sentinel]);
  const archives = new Map<string, Buffer>([
    [SMALL_TS, buildArchive(SMALL_TS, 2)],
    [LARGE_TS, largeArchive(LARGE_TS)],
  ]);
  const prepare = async (root: string, dataDir: string) => {
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
    for (const [ts, bytes] of archives)
      await fs.writeFile(path.join(dataDir, `${ts}.pmtiles`), bytes);
  };

  const storeCalls: StoreCall[] = [];
  const limiterCalls: string[] = [];
  const spies = { authCalls: 0 };
  const embedded = await startEmbeddedApi({
    rateLimit: options.rateLimit ?? 1_000_000,
    retentionS: 100 * 365 * 86400,
    env: options.env,
    prepare,
    decoratePorts: (ports) => ({
      ...ports,
      store: {
        ...ports.store,
        openRange: (meta, window, signal, owner) => {
          storeCalls.push({
            timestamp: meta.timestamp,
            offset: window.offset,
            length: window.length,
          });
          return ports.store.openRange(meta, window, signal, owner);
        },
        // The block cache answers a window it holds without openRange: a read all the same.
        readCached: (meta, window) => {
          const bytes = ports.store.readCached?.(meta, window);
          if (bytes)
            storeCalls.push({
              timestamp: meta.timestamp,
              offset: window.offset,
              length: window.length,
            });
          return bytes;
        },
      },
      limiter: {
        consume: (keyId, limit) => {
          limiterCalls.push(keyId);
          return ports.limiter.consume(keyId, limit);
        },
      },
      keys: {
        ...ports.keys,
        authenticate: (apiKey, appId) => {
          spies.authCalls++;
          return ports.keys.authenticate(apiKey, appId);
        },
      },
    }),
  });
  const running = embedded.replica;

  const api: HostileApi = {
    port: running.port,
    baseUrl: embedded.baseUrl,
    running,
    dataDir: embedded.dataDir,
    archives,
    byEtag: new Map(),
    sentinel,
    storeCalls,
    limiterCalls,
    get authCalls() {
      return spies.authCalls;
    },
    resetSpies() {
      storeCalls.length = 0;
      limiterCalls.length = 0;
      spies.authCalls = 0;
    },
    stop: () => embedded.stop(),
  };

  // Wait for the in-process ingest to list both archives, then learn their ETags.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const snapshot = running.ports.catalog.current();
    const metas = [...archives.keys()].map((ts) => snapshot.get(ts));
    if (metas.every((m) => m !== undefined)) {
      for (const meta of metas)
        (api.byEtag as Map<string, Buffer>).set(meta!.etag, archives.get(meta!.timestamp)!);
      break;
    }
    if (Date.now() > deadline) throw new Error('archives not listed within 10 s');
    await new Promise((r) => setTimeout(r, 25));
  }
  api.resetSpies();
  return api;
}
