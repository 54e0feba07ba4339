/**
 * No API key in any log line, any Redis value or any Redis event (docs/security.md), checked on
 * real processes with verbose logging:
 *
 * - embedded: `node dist/bin/api.js` in an empty directory at LOG_LEVEL=debug, keys created
 *   and disabled with the key CLI while it runs, a realistic map-client session plus the usual
 *   mistakes (wrong, near-miss, revoked and rate-limited keys, malformed Bearer values, the key
 *   in the query string, in the wrong header, in the path);
 * - production: a real Redis and S3 endpoint (test/harness), keys created in Redis with the
 *   key CLI, two `node dist/bin/api.js` replicas and `node dist/bin/ingest.js` at debug, the
 *   same session on both replicas; every Redis key's value and every message published on any
 *   channel during the run are captured too.
 *
 * What is grepped: everything each process wrote to stdout (the JSON log lines) and to stderr.
 * The one exception is by design: embedded `npm start` prints the demo key in its start-up
 * banner on stderr (README: "printed on stderr as a banner, never written to the JSON logs").
 * That exact banner text (rebuilt with `demoBanner`) is removed from stderr before grepping;
 * anything else on stderr counts. The key CLI's stdout of `create-key` is the one place a new
 * key is shown, also by design, and is not grepped; its other output is. Each key is searched
 * whole and by its 24-character body (a truncated or re-prefixed key would still be found).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { hashApiKey } from '../../src/domain/key-registry';
import { demoBanner } from '../../src/embedded/demo-credentials';
import { buildArchive } from '../fixtures/archives';
import { request } from '../harness/http-client';
import { startRedis, type RedisServer } from '../harness/redis-server';
import { waitFor } from '../harness/wait';
import { startS3, type S3TestServer } from '../harness/s3-server';
import {
  API_ENTRY,
  freePort,
  spawnNode,
  startApi,
  type SpawnedProcess,
} from '../harness/spawned-api';
import { recentTimestamp } from '../harness/timestamps';
import { backendEnv } from '../../tools/stack/backend-env';

jest.setTimeout(180_000);

const KEYS_ENTRY = path.resolve(__dirname, '../../dist/bin/keys.js');
const INGEST_ENTRY = path.resolve(__dirname, '../../dist/bin/ingest.js');

interface Credential {
  readonly key: string;
  readonly app: string;
}

const headersFor = (c: Credential) => ({
  Authorization: `Bearer ${c.key}`,
  'X-App': `Bearer ${c.app}`,
});

/** A fresh key that was never issued (same shape as real ones). */
const strayKey = () => `rk_${randomBytes(32).toString('base64url')}`;

/** Near miss: the real key with its last character changed. */
const nearMiss = (key: string) => `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;

/**
 * A map client's session plus the usual mistakes. Returns every key string it sent.
 * `good` must be allowed; `revoked` is refused with 403; `limited` has a limit of 2.
 */
async function session(
  base: string,
  good: Credential,
  revoked: Credential,
  limited: Credential,
): Promise<string[]> {
  const used = new Set([good.key, revoked.key, limited.key]);
  const status = await request(base, '/status.json', { headers: headersFor(good) });
  expect(status.status).toBe(200);
  const latest = status.json<{ latest: string }>().latest;
  const tile = `/tiles/${latest}.pmtiles`;
  const h = headersFor(good);
  expect((await request(base, tile, { headers: { ...h, Range: 'bytes=0-16383' } })).status).toBe(
    206,
  );
  for (const range of [
    'bytes=16384-20000',
    'bytes=-100',
    'bytes=0-0',
    'bytes=99999999-',
    'bytes=0-1,3-4',
    'garbage',
  ]) {
    expect((await request(base, tile, { headers: { ...h, Range: range } })).status).toBeLessThan(
      500,
    );
  }
  const head = await request(base, tile, { method: 'HEAD', headers: h });
  expect(
    (await request(base, tile, { headers: { ...h, 'If-None-Match': head.headers.etag as string } }))
      .status,
  ).toBe(304);
  expect((await request(base, '/tiles/202001010000.pmtiles', { headers: h })).status).toBe(404);
  expect((await request(base, '/tiles/2020.pmtiles', { headers: h })).status).toBe(400);

  const wrong = [strayKey(), nearMiss(good.key), good.key.toUpperCase(), `${good.key}x`];
  for (const key of wrong) {
    used.add(key);
    expect(
      (
        await request(base, tile, {
          headers: { Authorization: `Bearer ${key}`, 'X-App': `Bearer ${good.app}` },
        })
      ).status,
    ).toBe(401);
  }
  const malformed: Array<Record<string, string>> = [
    { Authorization: good.key, 'X-App': `Bearer ${good.app}` },
    { Authorization: `Token ${good.key}`, 'X-App': `Bearer ${good.app}` },
    { Authorization: `Bearer ${good.key}!`, 'X-App': `Bearer ${good.app}` },
    { Authorization: `Bearer ${good.key} ${good.key}`, 'X-App': `Bearer ${good.app}` },
    { Authorization: `Bearer ${good.app}`, 'X-App': `Bearer ${good.key}` }, // swapped headers
    { 'X-App': `Bearer ${good.app}`, 'X-Api-Key': good.key, Cookie: `key=${good.key}` },
  ];
  for (const headers of malformed)
    expect((await request(base, tile, { headers })).status).toBe(401);
  expect(
    (
      await request(base, `/status.json?api_key=${good.key}`, {
        headers: { 'X-App': `Bearer ${good.app}` },
      })
    ).status,
  ).toBe(401);
  expect((await request(base, `/tiles/${good.key}.pmtiles`, { headers: h })).status).toBe(400);
  expect((await request(base, `/${good.key}`, { headers: h })).status).toBe(404);
  expect((await request(base, tile, { method: 'DELETE', headers: h })).status).toBe(405);
  expect((await request(base, '/status.json', { headers: headersFor(revoked) })).status).toBe(403);
  const limitedStatuses: number[] = [];
  for (let i = 0; i < 3; i++)
    limitedStatuses.push(
      (await request(base, '/status.json', { headers: headersFor(limited) })).status,
    );
  expect(limitedStatuses[2]).toBe(429);
  return [...used];
}

/** Occurrences of any key (whole, or its 24-character body) in `text`. */
function leaks(text: string, keys: readonly string[]): string[] {
  const found: string[] = [];
  for (const key of keys) {
    const body = key.replace(/^rk_/, '').slice(0, 24);
    for (const needle of [key, body]) {
      const at = text.indexOf(needle);
      if (at !== -1)
        found.push(
          `${needle} in: ${JSON.stringify(text.slice(Math.max(0, at - 200), at + needle.length + 50))}`,
        );
    }
  }
  return found;
}

function logLines(text: string): number {
  return text.split('\n').filter((l) => l.startsWith('{') && l.includes('"msg"')).length;
}

describe('embedded npm start at LOG_LEVEL=debug', () => {
  let cwd: string;
  beforeAll(async () => {
    cwd = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-log-hygiene-'));
  });
  afterAll(() => fs.rm(cwd, { recursive: true, force: true }));

  it('no key in any log line or on stderr apart from the start-up banner', async () => {
    const started = await startApi(cwd, {
      RADAR_SIM_BACKFILL: '2',
      RADAR_SIM_MAX_ZOOM: '3',
      LOG_LEVEL: 'debug',
    });
    const { proc, base } = started;
    let stopped = false;
    try {
      const demo = { key: started.key, app: started.app };
      const file = path.join(cwd, 'keys.json');
      const cli = (...args: string[]) =>
        execFileSync(process.execPath, [KEYS_ENTRY, ...args, '--file', file], { encoding: 'utf8' });
      const newKey = (id: string, ...extra: string[]) =>
        cli('create-key', id, '--app', demo.app, ...extra)
          .trim()
          .split('\n')
          .pop()!;
      const revoked = { key: newKey('revoked'), app: demo.app };
      const limited = { key: newKey('limited', '--limit', '2'), app: demo.app };
      const cliOutput = [cli('disable-key', 'revoked'), cli('list')];

      await waitFor(
        async () =>
          (await request(base, '/status.json', { headers: headersFor(demo) })).status === 200,
        60_000,
        'first frame published',
        200,
      );
      await waitFor(
        async () =>
          (await request(base, '/status.json', { headers: headersFor(revoked) })).status === 403,
        5000,
        'revocation in force',
        50,
      );
      const used = await session(base, demo, revoked, limited);
      expect(await proc.stop('SIGTERM')).toBe(0);
      stopped = true;

      const stdout = proc.stdout();
      const stderr = proc.stderr();
      const banner = demoBanner(base, { apiKey: demo.key, appId: demo.app });
      expect(stderr).toContain(banner);
      const stderrWithoutBanner = stderr.replace(banner, '');
      expect(logLines(stdout)).toBeGreaterThan(20); // the session really was logged
      expect(stdout).toMatch(/"level":20\b/); // debug lines were enabled
      expect({
        stdout: leaks(stdout, used),
        stderr: leaks(stderrWithoutBanner, used),
        cli: leaks(cliOutput.join('\n'), used),
      }).toEqual({ stdout: [], stderr: [], cli: [] });
    } finally {
      if (!stopped) await proc.stop('SIGKILL');
    }
  });
});

describe('production: Redis, S3, two replicas and the ingest worker at LOG_LEVEL=debug', () => {
  let redis: RedisServer;
  let s3: S3TestServer;
  const procs: SpawnedProcess[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    s3 = await startS3();
  });
  afterAll(async () => {
    for (const p of procs) await p.stop('SIGKILL');
    await s3?.stop();
    await redis?.stop();
  });

  it('no key in any log line, any Redis value or any Redis message', async () => {
    const env = {
      HOST: '127.0.0.1',
      ...backendEnv(redis.url, s3),
      RADAR_RESYNC_S: '1',
      RADAR_INGEST_POLL_S: '1',
      RADAR_RETENTION_S: String(10 * 365 * 86400),
      RADAR_DRAIN_S: '1',
      LOG_LEVEL: 'debug',
    };
    // Every message on every channel while the run lasts.
    const monitor = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    const messages: string[] = [];
    monitor.on('pmessage', (_pattern: string, channel: string, message: string) =>
      messages.push(`${channel} ${message}`),
    );
    await monitor.connect();
    await monitor.psubscribe('*');

    const cliEnv = { PATH: process.env.PATH ?? '', REDIS_URL: redis.url, LOG_LEVEL: 'debug' };
    const cli = (...args: string[]) =>
      execFileSync(process.execPath, [KEYS_ENTRY, ...args], { encoding: 'utf8', env: cliEnv });
    const app = 'hygiene-web';
    const cliOutput = [cli('create-app', app)];
    const newKey = (id: string, ...extra: string[]) =>
      cli('create-key', id, '--app', app, ...extra)
        .trim()
        .split('\n')
        .pop()!;
    const good = { key: newKey('good'), app };
    const revoked = { key: newKey('revoked'), app };
    const limited = { key: newKey('limited', '--limit', '2'), app };
    cliOutput.push(cli('disable-key', 'revoked'), cli('list'));

    const ts = recentTimestamp(1);
    await s3.put(`${ts}.pmtiles`, buildArchive(ts, 2));

    const ingest = spawnNode(INGEST_ENTRY, {
      cwd: os.tmpdir(),
      env: { ...env, ADMIN_PORT: String(await freePort()) },
    });
    procs.push(ingest);
    const bases: string[] = [];
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      procs.push(
        spawnNode(API_ENTRY, {
          cwd: os.tmpdir(),
          env: { ...env, PORT: String(port), ADMIN_PORT: String(await freePort()) },
        }),
      );
      bases.push(`http://127.0.0.1:${port}`);
    }
    const used = new Set<string>();
    for (const base of bases) {
      await waitFor(
        async () =>
          (
            await request(base, '/status.json', { headers: headersFor(good) }).catch(
              () => undefined,
            )
          )?.status === 200,
        30_000,
        `${base} serving ${ts}`,
        100,
      );
      for (const key of await session(base, good, revoked, limited)) used.add(key);
    }
    for (const p of procs) expect(await p.stop('SIGTERM')).toBe(0);

    // Redis: every value of every key.
    const dump: string[] = [];
    let registrySeen = false;
    const reader = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      for (const key of await reader.keys('*')) {
        const type = await reader.type(key);
        const value =
          type === 'string'
            ? await reader.get(key)
            : type === 'hash'
              ? JSON.stringify(await reader.hgetall(key))
              : type === 'zset'
                ? (await reader.zrange(key, 0, -1, 'WITHSCORES')).join(' ')
                : type === 'set'
                  ? (await reader.smembers(key)).join(' ')
                  : type === 'list'
                    ? (await reader.lrange(key, 0, -1)).join(' ')
                    : `(${type})`;
        dump.push(`${key} ${value}`);
        if (value?.includes(hashApiKey(good.key))) registrySeen = true;
      }
    } finally {
      reader.disconnect();
      monitor.disconnect();
    }
    expect(registrySeen).toBe(true); // the registry is there, as hashes
    expect(messages.some((m) => m.includes(':keys:'))).toBe(true); // key events were captured

    for (const p of procs) expect(logLines(p.stdout())).toBeGreaterThan(0);
    expect(procs.slice(1).every((p) => p.stdout().includes('"msg":"request"'))).toBe(true);
    const logs = procs.map((p) => `${p.stdout()}\n${p.stderr()}`).join('\n');
    expect({
      logs: leaks(logs, [...used]),
      cli: leaks(cliOutput.join('\n'), [...used]),
      redis: leaks(dump.join('\n'), [...used]),
      messages: leaks(messages.join('\n'), [...used]),
    }).toEqual({ logs: [], cli: [], redis: [], messages: [] });
  });
});
