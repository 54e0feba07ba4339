/**
 * `npm start` as a newcomer runs it: the built entry point in an empty directory, no
 * configuration. It creates demo keys, prints working credentials and a curl line, serves
 * simulated radar, reports readiness, drains on SIGTERM and shows the same credentials again.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { request } from '../harness/http-client';
import { API_ENTRY, spawnNode, startApi } from '../harness/spawned-api';

jest.setTimeout(90_000);

let cwd: string;
beforeAll(async () => {
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-start-'));
});
afterAll(() => fs.rm(cwd, { recursive: true, force: true }));

/** `npm start` in `cwd` with a small simulated pyramid (quick); everything else the default. */
const start = () => startApi(cwd, { RADAR_SIM_BACKFILL: '3', RADAR_SIM_MAX_ZOOM: '4' });

it('serves live simulated radar with the printed credentials, then drains and exits 0', async () => {
  const first = await start();
  const { base, admin } = first;
  expect(first.proc.stderr()).toContain(`curl -s -H 'Authorization: Bearer ${first.key}'`);
  const { headers } = first;

  // The newest frame is published by the in-process simulator within seconds of start.
  let status = await request(base, '/status.json', { headers });
  const deadline = Date.now() + 30_000;
  while (status.status !== 200 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    status = await request(base, '/status.json', { headers });
  }
  expect(status.status).toBe(200);
  const body = status.json<{ healthy: boolean; latest: string; timestamps: string[] }>();
  expect(body.healthy).toBe(true);
  expect(body.latest).toMatch(/^[0-9]{12}$/);

  const range = await request(base, `/tiles/${body.latest}.pmtiles`, {
    headers: { ...headers, Range: 'bytes=0-16383' },
  });
  expect(range.status).toBe(206);
  expect(range.body.subarray(0, 7).toString()).toBe('PMTiles');

  expect((await request(admin, '/readyz')).status).toBe(200);
  expect((await request(admin, '/healthz')).status).toBe(200);

  expect(await first.proc.stop('SIGTERM')).toBe(0);
  // Keys are stored hashed; the plain key is only in the demo credentials file.
  expect(await fs.readFile(path.join(cwd, 'keys.json'), 'utf8')).not.toContain(first.key);
  expect(first.proc.stdout()).not.toContain(first.key);

  const second = await start();
  expect(second.key).toBe(first.key);
  expect(await second.proc.stop('SIGINT')).toBe(0);
});

it('refuses an invalid configuration with one message listing every problem', async () => {
  const proc = spawnNode(API_ENTRY, { cwd, env: { PORT: 'x', RADAR_RATE_LIMIT: '-1' } });
  expect(await new Promise((r) => proc.child.once('exit', r))).toBe(2);
  expect(proc.stderr()).toMatch(/Invalid configuration:[\s\S]*PORT[\s\S]*RADAR_RATE_LIMIT/);
});
