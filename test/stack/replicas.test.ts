/**
 * Two replicas, one Redis, one S3 endpoint, one ingest worker (issue: production backends):
 * shared rate limits, publication to every replica, byte-exact ranges from the bucket,
 * corrupt uploads never listed, recovery from an emptied Redis, the pmtiles reader through a
 * replica, and the upstream request closed when a client disconnects.
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { FetchSource, PMTiles } from 'pmtiles';
import { KEY_REGISTRY_KEY, TIMESTAMPS_KEY } from '../../src/adapters/redis/keys';
import { archiveOf, buildArchive, pyramid } from '../fixtures/archives';
import { request } from '../harness/http-client';
import {
  startProductionStack,
  stackAuth,
  STACK_APP,
  STACK_KEYS,
  type ProductionStack,
} from '../harness/production-stack';
import { reportFigure, waitFor } from '../harness/wait';
import { recentTimestamp } from '../harness/timestamps';

jest.setTimeout(60_000);

let stack: ProductionStack;
const now = Date.now();
const ts = (i: number) => recentTimestamp(i, now);
const archives = new Map<string, Buffer>();

async function upload(
  timestamp: string,
  bytes: Buffer = buildArchive(timestamp, 3),
): Promise<void> {
  archives.set(timestamp, bytes);
  await stack.s3.put(`${timestamp}.pmtiles`, bytes);
}

async function listedOn(baseUrl: string): Promise<string[]> {
  const res = await request(baseUrl, '/status.json', { headers: stackAuth() });
  return res.status === 200 ? res.json<{ timestamps: string[] }>().timestamps : [];
}

async function waitListedEverywhere(timestamp: string, timeoutMs: number): Promise<void> {
  for (const url of stack.baseUrls) {
    await waitFor(
      async () => (await listedOn(url)).includes(timestamp),
      timeoutMs,
      `${timestamp} on ${url}`,
      25,
    );
  }
}

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 2 });
  console.info(`[replicas.test] backends: ${stack.backends}`);
  await upload(ts(1));
  await waitListedEverywhere(ts(1), 10_000);
});
afterAll(() => stack?.stop());

it('publishes an upload to every replica promptly after the worker publishes it (figure reported)', async () => {
  const timestamp = ts(0);
  await upload(timestamp);
  await waitFor(
    async () => (await stack.client.zscore(TIMESTAMPS_KEY, timestamp)) !== null,
    10_000,
    'published in Redis',
  );
  const published = Date.now();
  // Events deliver in milliseconds; the bound is wide for a shared machine, the figure reported.
  await waitListedEverywhere(timestamp, 10_000);
  reportFigure('publish to listed on every replica', Date.now() - published);
  for (const url of stack.baseUrls) {
    const status = (await request(url, '/status.json', { headers: stackAuth() })).json<{
      latest: string;
      timestamps: string[];
    }>();
    expect(status.latest).toBe(timestamp);
    expect(new Set(status.timestamps).size).toBe(status.timestamps.length);
  }
});

it('serves the same status bytes and ETags on every replica, in every coding', async () => {
  const answers = await Promise.all(
    stack.baseUrls.flatMap((url) =>
      ['identity', 'gzip', 'br'].map(async (coding) => {
        const res = await request(url, '/status.json', {
          headers: { ...stackAuth(), 'Accept-Encoding': coding },
        });
        expect(res.status).toBe(200);
        return { url, coding, etag: res.headers.etag, body: res.body };
      }),
    ),
  );
  for (const coding of ['identity', 'gzip', 'br']) {
    const same = answers.filter((a) => a.coding === coding);
    expect(same).toHaveLength(stack.baseUrls.length);
    expect(new Set(same.map((a) => a.etag)).size).toBe(1);
    for (const a of same) expect(a.body.equals(same[0]!.body)).toBe(true);
  }
  const identity = answers.find((a) => a.coding === 'identity')!.body;
  expect(gunzipSync(answers.find((a) => a.coding === 'gzip')!.body).equals(identity)).toBe(true);
  expect(brotliDecompressSync(answers.find((a) => a.coding === 'br')!.body).equals(identity)).toBe(
    true,
  );
});

it('the ingest worker reports leadership, publications and lag on its admin /metrics', async () => {
  const text = (
    await request(`http://127.0.0.1:${stack.ingest.adminPort}`, '/metrics')
  ).body.toString();
  expect(text).toMatch(/^radar_ingest_leader 1$/m);
  expect(Number(/^radar_ingest_published_total (\d+)$/m.exec(text)![1])).toBeGreaterThanOrEqual(2);
  expect(text).toMatch(/^radar_ingest_lag_seconds_count \d+$/m);
  expect((await request(`http://127.0.0.1:${stack.ingest.adminPort}`, '/healthz')).status).toBe(
    200,
  );
});

it('serves byte-identical ranges from the bucket on both replicas', async () => {
  const timestamp = ts(1);
  const bytes = archives.get(timestamp)!;
  const size = bytes.length;
  const windows: Array<[string, number, number]> = [
    ['bytes=0-0', 0, 0],
    ['bytes=0-16383', 0, 16383],
    ['bytes=1000-1999', 1000, 1999],
    [`bytes=${size - 1}-`, size - 1, size - 1],
    ['bytes=-700', size - 700, size - 1],
    [`bytes=100-${size + 100}`, 100, size - 1],
  ];
  for (const url of stack.baseUrls) {
    for (const [range, start, end] of windows) {
      const res = await request(url, `/tiles/${timestamp}.pmtiles`, {
        headers: { ...stackAuth(), Range: range },
      });
      expect(res.status).toBe(206);
      expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
      expect(res.body.equals(bytes.subarray(start, end + 1))).toBe(true);
    }
    const whole = await request(url, `/tiles/${timestamp}.pmtiles`, { headers: stackAuth() });
    expect(whole.status).toBe(200);
    expect(whole.body.equals(bytes)).toBe(true);
    expect(whole.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
  }
  const etags = await Promise.all(
    stack.baseUrls.map(
      async (url) =>
        (
          await request(url, `/tiles/${timestamp}.pmtiles`, {
            method: 'HEAD',
            headers: stackAuth(),
          })
        ).headers.etag,
    ),
  );
  expect(etags[0]).toBe(etags[1]);
});

it('never lists a corrupt, truncated or wrongly named upload', async () => {
  const good = buildArchive(ts(3), 3);
  const corrupt = Buffer.from(good);
  corrupt.writeUInt8(2, 7); // PMTiles version 2
  await stack.s3.put(`${ts(3)}.pmtiles`, corrupt);
  await stack.s3.put(`${ts(4)}.pmtiles`, good.subarray(0, good.length - 1));
  await stack.s3.put('latest.pmtiles', good);
  await stack.s3.put(`${ts(5)}.pmtiles.tmp`, good);
  // Three polling periods (1 s each) give the worker every chance to publish them.
  await new Promise((r) => setTimeout(r, 3500));
  for (const url of stack.baseUrls) {
    const listed = await listedOn(url);
    expect(listed).not.toContain(ts(3));
    expect(listed).not.toContain(ts(4));
    expect(listed).not.toContain(ts(5));
  }
  expect(await stack.client.zscore(TIMESTAMPS_KEY, ts(3))).toBeNull();
});

it('shares one rate limit across replicas: exactly 10 of 20 alternating requests succeed', async () => {
  const results = [];
  for (let i = 0; i < 20; i++) {
    const url = stack.baseUrls[i % 2]!;
    results.push(
      await request(url, `/tiles/${ts(1)}.pmtiles`, {
        headers: { ...stackAuth(STACK_KEYS.ten), Range: 'bytes=0-9' },
      }),
    );
  }
  expect(results.filter((r) => r.status === 206)).toHaveLength(10);
  const limited = results.filter((r) => r.status === 429);
  expect(limited).toHaveLength(10);
  expect(results.slice(0, 10).map((r) => r.headers['x-ratelimit-remaining'])).toEqual([
    '9',
    '8',
    '7',
    '6',
    '5',
    '4',
    '3',
    '2',
    '1',
    '0',
  ]);
  const resets = new Set(results.map((r) => Number(r.headers['x-ratelimit-reset'])));
  expect(Math.max(...resets) - Math.min(...resets)).toBeLessThanOrEqual(1);
  for (const r of limited) {
    expect(r.json()).toEqual({ error: { code: 429, message: 'Too Many Requests' } });
    expect(r.headers['x-ratelimit-limit']).toBe('10');
    expect(r.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }
  // Both replicas answered 429s, so the count really is shared.
  expect(
    new Set(results.map((r, i) => (r.status === 429 ? i % 2 : -1)).filter((x) => x >= 0)),
  ).toEqual(new Set([0, 1]));
});

it('reads tiles with the pmtiles reader through a replica backed by S3', async () => {
  const timestamp = ts(6);
  const tiles = pyramid(6, 90);
  const bytes = archiveOf(tiles, 6, { timestamp });
  await upload(timestamp, bytes);
  await waitListedEverywhere(timestamp, 10_000);
  const reader = new PMTiles(
    new FetchSource(`${stack.baseUrls[1]}/tiles/${timestamp}.pmtiles`, new Headers(stackAuth())),
  );
  expect((await reader.getHeader()).numAddressedTiles).toBe(tiles.length);
  for (const tile of [tiles[0]!, tiles[77]!, tiles[tiles.length - 1]!]) {
    const got = await reader.getZxy(tile.z, tile.x, tile.y);
    expect(Buffer.from(got!.data).equals(Buffer.from(tile.data))).toBe(true);
  }
});

it('closes the upstream request when the client disconnects mid-download', async () => {
  const timestamp = ts(7);
  const big = archiveOf(pyramid(6, 1500), 6, {});
  await upload(timestamp, big);
  await waitListedEverywhere(timestamp, 10_000);
  const upstream = stack.s3.upstream!;
  const abortedBefore = upstream.abortedResponses();
  const url = new URL(stack.baseUrls[0]!);
  await new Promise<void>((resolve, reject) => {
    const req = http.get(
      {
        host: url.hostname,
        port: url.port,
        path: `/tiles/${timestamp}.pmtiles`,
        headers: stackAuth(),
        agent: false,
      },
      (res) => {
        expect(res.statusCode).toBe(200);
        expect(Number(res.headers['content-length'])).toBe(big.length);
        res.once('data', () => {
          req.destroy(); // the client goes away after the first chunk
          resolve();
        });
      },
    );
    req.on('error', () => {});
    req.setTimeout(10_000, () => reject(new Error('no data')));
  });
  // Both together: inFlight may already be 0 before the abort is counted.
  await waitFor(
    () => upstream.inFlight() === 0 && upstream.abortedResponses() > abortedBefore,
    5000,
    'upstream response aborted and no request in flight',
  );
});

it('the key CLI administers keys in Redis; creation and revocation reach both replicas (figures reported)', async () => {
  const cli = path.resolve(__dirname, '../../dist/bin/keys.js');
  const keys = (...args: string[]) =>
    execFileSync(process.execPath, [cli, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, REDIS_URL: stack.redis.url },
    });
  const apiKey = keys('create-key', 'cli-made', '--app', STACK_APP).trim().split('\n').pop()!;
  const headers = { Authorization: `Bearer ${apiKey}`, 'X-App': `Bearer ${STACK_APP}` };
  const statusOn = async (url: string) => (await request(url, '/status.json', { headers })).status;
  for (const url of stack.baseUrls)
    reportFigure(
      `new key accepted on ${url}`,
      await waitFor(async () => (await statusOn(url)) === 200, 10_000, `new key on ${url}`, 25),
    );
  expect(keys('list')).toContain('cli-made');
  keys('disable-key', 'cli-made');
  for (const url of stack.baseUrls)
    reportFigure(
      `key revoked on ${url}`,
      await waitFor(async () => (await statusOn(url)) === 403, 10_000, `revoked on ${url}`, 25),
    );
  expect(await stack.client.get(KEY_REGISTRY_KEY)).not.toContain(apiKey);
});

it('rebuilds the catalog after Redis restarts empty; replicas recover without restart', async () => {
  const before = await listedOn(stack.baseUrls[0]!);
  expect(before.length).toBeGreaterThanOrEqual(3);
  await stack.redis.restart();
  const indexSize = async () => {
    try {
      return await stack.client.zcard(TIMESTAMPS_KEY);
    } catch {
      return -1; // still reconnecting
    }
  };
  // Reconciliation (1 s polling) republishes every object from the bucket.
  await waitFor(
    async () => (await indexSize()) === before.length,
    20_000,
    'index rebuilt from the bucket',
    100,
  );
  for (const url of stack.baseUrls) {
    await waitFor(
      async () => {
        const now = await listedOn(url);
        return now.length === before.length && before.every((t) => now.includes(t));
      },
      10_000,
      `catalog rebuilt on ${url}`,
      100,
    );
  }
  // Events flow again: a new upload reaches both replicas through the reconnected channel.
  await upload(ts(8));
  await waitListedEverywhere(ts(8), 5000);
});
