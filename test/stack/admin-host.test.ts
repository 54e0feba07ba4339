/**
 * ADMIN_HOST over real sockets: the admin listener (/metrics, /healthz, /readyz) binds
 * loopback by default whatever the public HOST, and exactly the address ADMIN_HOST names.
 * 127.0.0.0/8 on Linux gives distinct local addresses to tell the bindings apart.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createSilentLogger } from '../../src/logger';
import { buildReplica, type Replica } from '../../src/wiring/replica';
import { request } from '../harness/http-client';

jest.setTimeout(30_000);

let root: string;
beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-admin-host-'));
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

async function withReplica(env: Record<string, string>, check: (api: Replica) => Promise<void>) {
  const config = loadConfig(
    { PORT: '0', ADMIN_PORT: '0', RADAR_SIMULATE: '0', LOG_LEVEL: 'silent', ...env },
    root,
  );
  const api = await buildReplica(config, { logger: createSilentLogger() });
  try {
    await check(api);
  } finally {
    await api.shutdown();
  }
}

const health = (host: string, port: number) =>
  request(`http://${host}:${port}`, '/healthz', { timeoutMs: 2000 }).then(
    (res) => res.status,
    (err: NodeJS.ErrnoException) => err.code ?? err.message,
  );

it('defaults to 127.0.0.1 for admin, whatever HOST the public API uses', async () => {
  await withReplica({ HOST: '127.0.0.3' }, async (api) => {
    expect(await health('127.0.0.1', api.adminPort)).toBe(200);
    expect(await health('127.0.0.3', api.adminPort)).toBe('ECONNREFUSED');
    // The public API is where HOST says.
    expect((await request(`http://127.0.0.3:${api.port}`, '/status.json')).status).toBe(401);
  });
});

it('binds exactly ADMIN_HOST when set', async () => {
  await withReplica({ HOST: '127.0.0.1', ADMIN_HOST: '127.0.0.2' }, async (api) => {
    expect(await health('127.0.0.2', api.adminPort)).toBe(200);
    expect(await health('127.0.0.1', api.adminPort)).toBe('ECONNREFUSED');
  });
});
