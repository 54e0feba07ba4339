/**
 * `X-Content-Type-Options: nosniff` on every kind of response a real replica gives: successes
 * (status, whole archive, range, HEAD), 304 on both endpoints, every error status (400, 401,
 * 403, 404 on a route and off it, 405, 412, 416, 429, 503), the plain OPTIONS and the CORS
 * preflight. No response names the server software. Responses Node's HTTP layer writes itself
 * (malformed requests, over-long heads) are covered by test/stack/fuzz-parser.test.ts.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import { loadConfig } from '../../src/config';
import { createSilentLogger } from '../../src/logger';
import { buildReplica, type Replica } from '../../src/wiring/replica';
import { APPS, auth, KEYS, registryData } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { SMALL_TS, startHostileApi, type HostileApi } from '../harness/fuzz/hostile-api';

jest.setTimeout(60_000);

let api: HostileApi;
let empty: Replica;
let emptyRoot: string;
beforeAll(async () => {
  api = await startHostileApi();
  // A replica with nothing published: /status.json is 503.
  emptyRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-empty-'));
  await writeKeyFile(path.join(emptyRoot, 'keys.json'), registryData());
  empty = await buildReplica(
    loadConfig(
      { HOST: '127.0.0.1', PORT: '0', ADMIN_PORT: '0', RADAR_SIMULATE: '0', LOG_LEVEL: 'silent' },
      emptyRoot,
    ),
    { logger: createSilentLogger() },
  );
});
afterAll(async () => {
  await api?.stop();
  await empty?.shutdown();
  await fs.rm(emptyRoot, { recursive: true, force: true });
});

const tile = `/tiles/${SMALL_TS}.pmtiles`;

it('every response kind carries nosniff and no server banner', async () => {
  const base = api.baseUrl;
  const etag = (await request(base, tile, { method: 'HEAD', headers: auth() })).headers
    .etag as string;
  const statusEtag = (await request(base, '/status.json', { headers: auth() })).headers
    .etag as string;
  const cases: Array<[number, string, Parameters<typeof request>[2], string?]> = [
    [200, '/status.json', { headers: auth() }],
    [200, tile, { headers: auth() }],
    [200, tile, { method: 'HEAD', headers: auth() }],
    [206, tile, { headers: { ...auth(), Range: 'bytes=0-99' } }],
    [304, '/status.json', { headers: { ...auth(), 'If-None-Match': statusEtag } }],
    [304, tile, { headers: { ...auth(), 'If-None-Match': etag } }],
    [400, '/tiles/202613011200.pmtiles', { headers: auth() }],
    [401, tile, {}],
    [401, '/status.json', { headers: auth('rk_unknown') }],
    [403, tile, { headers: auth(KEYS.disabled) }],
    [404, '/tiles/202001010000.pmtiles', { headers: auth() }],
    [404, '/nope', {}],
    [404, '/nope', { method: 'HEAD' }],
    [405, tile, { method: 'DELETE' }],
    [412, tile, { headers: { ...auth(), 'If-Match': '"other"' } }],
    [416, tile, { headers: { ...auth(), Range: 'bytes=99999999-' } }],
    [204, tile, { method: 'OPTIONS' }],
    [
      204,
      tile,
      {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://maps.example',
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'authorization,x-app,range',
        },
      },
    ],
    [503, '/status.json', { headers: auth() }, 'empty'],
  ];
  for (let i = 0; i < 4; i++)
    cases.push([i < 3 ? 200 : 429, '/status.json', { headers: auth(KEYS.limited, APPS.web) }]);

  const problems: string[] = [];
  for (const [status, p, options, which] of cases) {
    const res = await request(
      which === 'empty' ? `http://127.0.0.1:${empty.port}` : base,
      p,
      options,
    );
    const cell = `${options?.method ?? 'GET'} ${p} -> ${res.status}`;
    if (res.status !== status) problems.push(`${cell}: expected ${status}`);
    if (res.headers['x-content-type-options'] !== 'nosniff') problems.push(`${cell}: no nosniff`);
    for (const banner of ['server', 'x-powered-by'])
      if (res.headers[banner] !== undefined) problems.push(`${cell}: ${banner} header`);
  }
  expect(problems).toEqual([]);
});
