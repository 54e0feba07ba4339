/**
 * A flood of long, well-formed but unknown API keys costs the real server no lasting memory.
 * Every bogus key is answered 401; the server must not remember anything sized by what a
 * client sends (the auth decision memo, and every other memo keyed by request headers).
 * The built server runs as a process with a preloaded fixture (test/fixtures/heap-report.mjs)
 * that collects garbage and prints `heapUsed` on SIGUSR2, so the figure is the server's own
 * live heap, not an estimate.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import { archiveOf, pyramid } from '../fixtures/archives';
import { APPS, auth, registryData } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import type { SpawnedProcess } from '../harness/spawned-api';
import { spawnServedApi } from '../harness/served-api';
import { reportFigure } from '../harness/wait';

jest.setTimeout(180_000);

const HEAP_REPORT = path.resolve(__dirname, '../fixtures/heap-report.mjs');
const TS = '202611221400';
/** What the outside attack sent: 9,900 distinct tokens of 7,900 characters. */
const FLOOD_REQUESTS = 9_900;
const TOKEN_CHARS = 7_900;
/**
 * The stated bound: after the flood and a full GC, the server's heap is at most this much
 * above where it was before. The tokens alone are 78 MB; a server that keeps none of them
 * grows by a few MB at most (JIT code, pools, metric series).
 */
const HEAP_GROWTH_BOUND_BYTES = 16 * 1024 * 1024;

let root: string;
let server: SpawnedProcess | undefined;
let base: string;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-heap-'));
  await fs.mkdir(path.join(root, 'data'));
  await fs.writeFile(path.join(root, 'data', `${TS}.pmtiles`), archiveOf(pyramid(2, 2_000), 2));
  await writeKeyFile(path.join(root, 'keys.json'), registryData());
  const served = await spawnServedApi(root, TS, { NODE_OPTIONS: `--import ${HEAP_REPORT}` });
  server = served.proc;
  base = served.base;
});

afterAll(async () => {
  await server?.stop();
  await fs.rm(root, { recursive: true, force: true });
});

let reports = 0;
/** The server's heapUsed after two full collections. */
async function serverHeap(): Promise<number> {
  reports += 1;
  server!.child.kill('SIGUSR2');
  const match = await server!.waitFor(new RegExp(`\\[heap-report ${reports}\\] (\\d+)`));
  return Number(match[1]);
}

/**
 * Sends `count` requests, each with its own random well-formed key (or all with the good key
 * when `bogus` is false); returns how many got each status.
 */
async function flood(count: number, bogus = true): Promise<Map<number, number>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const token = randomBytes((TOKEN_CHARS * 3) / 4).toString('base64url');
      const headers = bogus
        ? { Authorization: `Bearer ${token}`, 'X-App': `Bearer ${APPS.web}` }
        : auth();
      const res = await request(base, '/status.json', { headers, agent });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  agent.destroy();
  return statuses;
}

it(`${FLOOD_REQUESTS} requests with distinct ${TOKEN_CHARS}-character bogus keys: all 401, heap grows less than 16 MB`, async () => {
  // Warm up first (JIT, socket pools, metric series) with the real key, so the baseline is the
  // steady state and the flood below is the only source of bogus keys.
  expect(await flood(300, false)).toEqual(new Map([[200, 300]]));
  const before = await serverHeap();

  expect(await flood(FLOOD_REQUESTS)).toEqual(new Map([[401, FLOOD_REQUESTS]]));
  const after = await serverHeap();

  reportFigure('server heapUsed before the flood', before / 1024 / 1024, 'MB');
  reportFigure('server heapUsed after the flood', after / 1024 / 1024, 'MB');
  expect(after - before).toBeLessThan(HEAP_GROWTH_BOUND_BYTES);
  // The real key still works after the flood.
  expect((await request(base, '/status.json', { headers: auth() })).status).toBe(200);
});
