/**
 * Metrics and request logs of a real replica (`buildReplica`, embedded backends): route
 * templates as labels, the statuses SREs watch, auth and limiter counters, catalog gauges,
 * one log line per request with ids and never a key.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import { loadConfig } from '../../src/config';
import { buildReplica, type Replica } from '../../src/wiring/replica';
import { buildArchive } from '../fixtures/archives';
import { auth, KEYS, registryData } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { waitFor } from '../harness/wait';
import { recentTimestamp } from '../harness/timestamps';

let api: Replica;
let root: string;
const lines: Array<Record<string, unknown>> = [];
const ts = recentTimestamp();

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-obs-'));
  await fs.mkdir(path.join(root, 'data'));
  await writeKeyFile(path.join(root, 'keys.json'), registryData());
  await fs.writeFile(path.join(root, 'data', `${ts}.pmtiles`), buildArchive(ts, 2));
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const config = loadConfig(
    { HOST: '127.0.0.1', PORT: '0', ADMIN_PORT: '0', RADAR_SIMULATE: '0' },
    root,
  );
  api = await buildReplica(config, { logger: pino({ level: 'info' }, sink) });
});
afterAll(async () => {
  await api.shutdown();
  await fs.rm(root, { recursive: true, force: true });
});

const base = () => `http://127.0.0.1:${api.port}`;

it('exports request, limiter, auth, store, catalog and ingest metrics with bounded labels', async () => {
  await request(base(), '/status.json', { headers: auth() });
  await request(base(), `/tiles/${ts}.pmtiles`, { headers: { ...auth(), Range: 'bytes=0-99' } });
  await request(base(), `/tiles/${ts}.pmtiles`, {
    headers: { ...auth(), Range: 'bytes=999999999-' },
  });
  const etag = (await request(base(), `/tiles/${ts}.pmtiles`, { method: 'HEAD', headers: auth() }))
    .headers.etag as string;
  await request(base(), `/tiles/${ts}.pmtiles`, { headers: { ...auth(), 'If-None-Match': etag } });
  await request(base(), '/tiles/209901011200.pmtiles', { headers: auth() });
  await request(base(), '/no/such/path/202611221400', { headers: auth() });
  await request(base(), '/status.json', { headers: auth('rk_nope') });
  await request(base(), '/status.json', { headers: auth(KEYS.disabled) });
  for (let i = 0; i < 4; i++)
    await request(base(), '/status.json', { headers: auth(KEYS.limited) });

  const text = (await request(`http://127.0.0.1:${api.adminPort}`, '/metrics')).body.toString();
  const series = (name: string) =>
    text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  const requests = series('radar_http_requests_total');
  for (const status of ['200', '206', '304', '404', '416', '429', '401', '403']) {
    expect(requests.some((l) => l.includes(`status="${status}"`))).toBe(true);
  }
  const routes = new Set(requests.map((l) => /route="([^"]*)"/.exec(l)![1]));
  // Every route template (primed at 0 from the start) and the shared `unmatched`.
  expect(routes).toEqual(
    new Set([
      '/status.json',
      '/tiles/:timestamp.pmtiles',
      '/tiles/:timestamp.json',
      '/tiles/:timestamp/:z/:x/:y.png',
      '/tiles/:timestamp/:scheme.json',
      '/tiles/:timestamp/:scheme/:z/:x/:y.png',
      '/forecasts/:base/:lead.pmtiles',
      '/forecasts/:base/:lead.json',
      '/forecasts/:base/:lead/:z/:x/:y.png',
      '/forecasts/:base/:lead/:scheme.json',
      '/forecasts/:base/:lead/:scheme/:z/:x/:y.png',
      '/legend.json',
      '/openapi.json',
      'unmatched',
    ]),
  );
  expect(text).not.toMatch(/route="[^"]*[0-9]{12}/); // never a timestamp or raw path
  expect(text).not.toContain(KEYS.good);
  expect(series('radar_auth_failures_total').join('\n')).toMatch(/reason="unknown-key"[^\n]* 1/);
  expect(series('radar_auth_failures_total').join('\n')).toMatch(/reason="key-disabled"[^\n]* 1/);
  expect(series('radar_rate_limit_decisions_total').join('\n')).toMatch(
    /decision="limited",tier="3"\} 1/,
  );
  expect(series('radar_catalog_timestamps')).toEqual(['radar_catalog_timestamps 1']);
  expect(series('radar_catalog_in_sync')).toEqual(['radar_catalog_in_sync 1']);
  expect(series('radar_status_healthy')).toEqual(['radar_status_healthy 1']);
  expect(series('radar_ingest_published_total')).toEqual(['radar_ingest_published_total 1']);
  expect(series('radar_object_store_request_duration_seconds_count').join('\n')).toContain(
    'operation="get_range"',
  );
  expect(text).toContain('process_resident_memory_bytes');
  expect(text).toContain('nodejs_eventloop_lag_seconds');
});

it('logs one line per request with request id, route template, ids and no key', async () => {
  const res = await request(base(), `/tiles/${ts}.pmtiles`, {
    headers: { ...auth(), Range: 'bytes=0-9', 'X-Request-Id': 'edge-abc-123' },
  });
  expect(res.headers['x-request-id']).toBe('edge-abc-123');
  const generated = (await request(base(), '/status.json', { headers: auth() })).headers[
    'x-request-id'
  ];
  expect(generated).toMatch(/^[0-9a-f-]{36}$/);
  const bad = (
    await request(base(), '/status.json', {
      headers: { ...auth(), 'X-Request-Id': 'x'.repeat(300) },
    })
  ).headers['x-request-id'];
  expect(bad).toMatch(/^[0-9a-f-]{36}$/);
  await waitFor(() => lines.some((l) => l.requestId === 'edge-abc-123'), 2000, 'log line');
  const line = lines.find((l) => l.requestId === 'edge-abc-123')!;
  expect(line).toMatchObject({
    msg: 'request',
    method: 'GET',
    route: '/tiles/:timestamp.pmtiles',
    status: 206,
    bytes: 10,
    keyId: 'good',
    appId: 'acme-web',
  });
  expect(typeof line.durationMs).toBe('number');
  const all = JSON.stringify(lines);
  for (const key of Object.values(KEYS)) expect(all).not.toContain(key);
});
