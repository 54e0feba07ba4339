/**
 * Captures real responses for the examples of the API description (`openapi/openapi.yaml`):
 * starts one embedded replica with the radar simulator (a short backfill) and a second one with
 * nothing published, sends one request per documented case over a real socket, and prints
 * what came back (status, the headers the description names, the body: JSON as is, bytes as a
 * length) as JSON. Examples in the description are pasted from this output, never invented.
 *
 *   npx tsx tools/capture-openapi-examples.ts > /tmp/examples.json
 *
 * Needs `npm run build` first for the `/openapi.json` case (it reads the built description).
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { writeKeyFile } from '../src/adapters/fs/key-file';
import { loadConfig } from '../src/config';
import { hashApiKey } from '../src/domain/key-registry';
import { createSilentLogger } from '../src/logger';
import { buildReplica, type Replica } from '../src/wiring/replica';

/** Demo credentials of the capture (made up here, valid only in its temporary key file). */
const KEY = 'rk_example-key-0123456789';
const TINY_KEY = 'rk_example-tiny-0123456789';
const APP = 'demo-app';
const OTHER_APP = 'other-app';
/** Frames the simulator publishes at start: a status document with a few timestamps. */
const BACKFILL = 3;

const SHOWN_HEADERS = [
  'accept-ranges',
  'access-control-allow-headers',
  'access-control-allow-methods',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'access-control-max-age',
  'allow',
  'cache-control',
  'content-encoding',
  'content-length',
  'content-range',
  'content-type',
  'etag',
  'last-modified',
  'oatiles-hint',
  'retry-after',
  'vary',
  'www-authenticate',
  'x-content-type-options',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-request-id',
];

interface Captured {
  readonly name: string;
  readonly request: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body?: unknown;
  readonly bytes?: number;
}

function send(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method,
      path: target,
      headers,
      agent: false,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function start(root: string, simulate: boolean): Promise<Replica> {
  const dataDir = path.join(root, 'data');
  const keysFile = path.join(root, 'keys.json');
  await fs.mkdir(dataDir, { recursive: true });
  await writeKeyFile(keysFile, {
    apps: [
      { id: APP, disabled: false },
      { id: OTHER_APP, disabled: false },
    ],
    keys: [
      { id: 'example', sha256: hashApiKey(KEY), apps: [APP], disabled: false },
      { id: 'tiny', sha256: hashApiKey(TINY_KEY), apps: [APP], limit: 1, disabled: false },
    ],
  });
  const config = loadConfig(
    {
      HOST: '127.0.0.1',
      PORT: '0',
      ADMIN_PORT: '0',
      RADAR_DATA_DIR: dataDir,
      RADAR_KEYS_FILE: keysFile,
      RADAR_SIMULATE: simulate ? '1' : '0',
      RADAR_SIM_BACKFILL: String(BACKFILL),
      RADAR_DRAIN_S: '1',
      LOG_LEVEL: 'silent',
    },
    root,
  );
  return buildReplica(config, { logger: createSilentLogger() });
}

async function main(): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-examples-'));
  const live = await start(path.join(root, 'live'), true);
  const empty = await start(path.join(root, 'empty'), false);
  const out: Captured[] = [];
  const auth = { Authorization: `Bearer ${KEY}`, 'X-App': `Bearer ${APP}` };
  const capture = async (
    name: string,
    target: string,
    options: { method?: string; headers?: Record<string, string>; port?: number } = {},
  ) => {
    const method = options.method ?? 'GET';
    const res = await send(options.port ?? live.port, method, target, options.headers ?? auth);
    const headers: Record<string, string> = {};
    for (const header of SHOWN_HEADERS) {
      const value = res.headers[header];
      if (value !== undefined) headers[header] = Array.isArray(value) ? value.join(', ') : value;
    }
    const json = String(res.headers['content-type']).startsWith('application/json');
    const encoded = res.headers['content-encoding'] !== undefined;
    out.push({
      name,
      request: `${method} ${target}`,
      status: res.status,
      headers,
      ...(json && !encoded && res.body.length > 0 && res.body.length < 8192
        ? { body: JSON.parse(res.body.toString('utf8')) as unknown }
        : { bytes: res.body.length }),
    });
    return res;
  };
  try {
    // Until the backfilled frames are all listed (at most a minute).
    const listed = async () => {
      const res = await send(live.port, 'GET', '/status.json', auth);
      if (res.status !== 200) return undefined;
      const doc = JSON.parse(res.body.toString('utf8')) as { latest: string; timestamps: string[] };
      return doc.timestamps.length >= BACKFILL ? doc.latest : undefined;
    };
    let latest = await listed();
    for (let i = 0; latest === undefined && i < 600; i++) {
      await new Promise((r) => setTimeout(r, 100));
      latest = await listed();
    }
    if (latest === undefined) throw new Error(`the simulator did not publish ${BACKFILL} frames`);
    const archive = `/tiles/${latest}.pmtiles`;

    const statusRes = await capture('status', '/status.json');
    await capture('status gzip', '/status.json', {
      headers: { ...auth, 'Accept-Encoding': 'gzip' },
    });
    await capture('status 304', '/status.json', {
      headers: { ...auth, 'If-None-Match': String(statusRes.headers.etag) },
    });
    await capture('status 412', '/status.json', { headers: { ...auth, 'If-Match': '"other"' } });
    await capture('status 503 (nothing published)', '/status.json', { port: empty.port });
    const range = await capture('archive 206', archive, {
      headers: { ...auth, Range: 'bytes=0-16383' },
    });
    await capture('archive HEAD 200', archive, { method: 'HEAD' });
    await capture('archive 304', archive, {
      headers: { ...auth, 'If-None-Match': String(range.headers.etag) },
    });
    await capture('archive 412', archive, { headers: { ...auth, 'If-Match': '"other"' } });
    await capture('archive 416', archive, { headers: { ...auth, Range: 'bytes=999999999-' } });
    await capture('archive 404', '/tiles/202001010000.pmtiles');
    await capture('archive 400', '/tiles/202613011200.pmtiles');
    await capture('tilejson 200', `/tiles/${latest}.json`);
    let stored: string | undefined;
    for (const [z, x, y] of [
      [4, 3, 6],
      [4, 4, 6],
      [5, 8, 12],
      [5, 7, 12],
    ] as const) {
      const tile = await send(live.port, 'HEAD', `/tiles/${latest}/${z}/${x}/${y}.png`, auth);
      if (tile.headers['oatiles-hint'] === undefined) {
        await capture('tile 200', `/tiles/${latest}/${z}/${x}/${y}.png`);
        stored = `${z}/${x}/${y}`;
        break;
      }
    }
    if (stored !== undefined) {
      const scheme = await capture('scheme tile 200', `/tiles/${latest}/cividis/${stored}.png`);
      await capture('scheme tile 304', `/tiles/${latest}/cividis/${stored}.png`, {
        headers: { ...auth, 'If-None-Match': String(scheme.headers.etag) },
      });
    }
    await capture('scheme tile 400 (unknown scheme)', `/tiles/${latest}/rainbow/4/3/6.png`);
    await capture('scheme tilejson 200', `/tiles/${latest}/cividis.json`);
    const legend = await capture('legend 200', '/legend.json');
    await capture('legend gzip', '/legend.json', {
      headers: { ...auth, 'Accept-Encoding': 'gzip' },
    });
    await capture('legend 304', '/legend.json', {
      headers: { ...auth, 'If-None-Match': String(legend.headers.etag) },
    });
    await capture('empty tile 200', `/tiles/${latest}/4/0/0.png`);
    await capture('tile 400 (z outside the archive)', `/tiles/${latest}/30/0/0.png`);
    await capture('401', '/status.json', { headers: {} });
    await capture('403', '/status.json', {
      headers: { Authorization: `Bearer ${KEY}`, 'X-App': `Bearer ${OTHER_APP}` },
    });
    const tiny = { Authorization: `Bearer ${TINY_KEY}`, 'X-App': `Bearer ${APP}` };
    await capture('tiny key, first', '/status.json', { headers: tiny });
    await capture('429', '/status.json', { headers: tiny });
    await capture('405', '/status.json', { method: 'DELETE' });
    await capture('417', '/status.json', { headers: { ...auth, Expect: 'something-else' } });
    await capture('preflight 204', archive, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://maps.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization,x-app,range',
      },
    });
    await capture('plain OPTIONS 204', '/status.json', { method: 'OPTIONS', headers: {} });
    await capture('openapi 200', '/openapi.json', { method: 'HEAD', headers: {} });
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } finally {
    await Promise.all([live.shutdown(), empty.shutdown()]);
    await fs.rm(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`capture failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
