/**
 * Per-key usage in embedded mode over real sockets: a known mix of requests (200, 206, 304,
 * 400, 404, 416, 429, HEAD, refusals of known keys, an abandoned download) against one
 * replica, counted in memory, flushed to `usage.json` beside the key file, and read back
 * through the admin listener's `/usage` and `npm run keys -- usage --json` (the built CLI),
 * which agree with each other and with what the client saw. Requests without a known key are
 * not usage.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { UsageReport } from '../../src/domain/usage-report';
import { bigArchive, buildArchive } from '../fixtures/archives';
import { APPS, auth, KEYS, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { sample, scrape } from '../harness/fault-stack';
import { request } from '../harness/http-client';
import { abandonDownload, UsageLedger, usageMismatches } from '../harness/usage-ledger';
import { waitFor } from '../harness/wait';

jest.setTimeout(60_000);

const KEYS_ENTRY = path.resolve(__dirname, '../../dist/bin/keys.js');
const TS = '202611221400';
const BIG = '202611221402';
const archive = buildArchive(TS, 3);
let api: EmbeddedApi;
const ledger = new UsageLedger();

const admin = () => `http://127.0.0.1:${api.replica.adminPort}`;

async function usage(query = 'since=2h'): Promise<UsageReport> {
  const res = await request(admin(), `/usage?${query}`);
  expect(res.status).toBe(200);
  return res.json<UsageReport>();
}

/** Sends a request that names `key` and records what came back. */
async function send(key: string, p: string, headers: Record<string, string>, method = 'GET') {
  const res = await request(api.baseUrl, p, { method, headers });
  ledger.answered(key, res);
  return res;
}

beforeAll(async () => {
  api = await startEmbeddedApi({ usageFlushMs: 200, env: { RADAR_CACHE_MB: '0' } });
  await api.publish(TS, archive);
  await api.publish(BIG, bigArchive(BIG));
  await api.waitForListed(TS);
  await api.waitForListed(BIG);

  const tiles = `/tiles/${TS}.pmtiles`;
  const status = await send('good', '/status.json', auth());
  await send('good', '/status.json', { ...auth(), 'If-None-Match': String(status.headers.etag) });
  await send('good', tiles, { ...auth(), Range: 'bytes=0-16383' });
  await send('good', tiles, { ...auth(), Range: `bytes=${archive.length + 10}-` });
  await send('good', tiles, auth(), 'HEAD');
  await send('good', tiles, auth());
  await send('good', '/tiles/202001010000.pmtiles', auth());
  await send('good', '/tiles/2020.pmtiles', auth());
  await send('good', `/tiles/${TS}.json`, auth());
  await send('good', '/status.json', auth(KEYS.good, 'no-such-app'));
  await send('good', '/status.json', auth(KEYS.good, APPS.off));
  await send('disabled', tiles, auth(KEYS.disabled));
  await send('unbound', '/status.json', auth(KEYS.unbound));
  for (let i = 0; i < 5; i++) await send('limited', '/status.json', auth(KEYS.limited));
  ledger.abandonedDownload(
    'good',
    await abandonDownload(api.baseUrl, `/tiles/${BIG}.pmtiles`, auth(), 64 * 1024),
  );

  // Not per-key usage: no key, an unknown key, a preflight, the API description.
  await request(api.baseUrl, '/status.json', { headers: auth('rk_unknown-key-0123456789') });
  await request(api.baseUrl, '/status.json');
  await request(api.baseUrl, '/status.json', {
    method: 'OPTIONS',
    headers: { Origin: 'https://a.example', 'Access-Control-Request-Method': 'GET' },
  });
  await request(api.baseUrl, '/openapi.json');

  const total = [...ledger.keys.values()].reduce((sum, k) => sum + k.requests, 0);
  await waitFor(
    async () => (await usage()).totals.requests === total,
    20_000,
    `usage flushed (${total} requests)`,
    100,
  );
});
afterAll(() => api?.stop());

it('the mix holds the statuses the usage report must tell apart', () => {
  for (const status of [200, 206, 304, 400, 401, 403, 404, 416, 429, 499])
    expect(ledger.statusesSeen()).toContain(status);
});

it('every key used counts what its client saw; requests without a known key count nowhere', async () => {
  const report = await usage();
  expect(report.keys.map((k) => k.key).sort()).toEqual(['disabled', 'good', 'limited', 'unbound']);
  for (const key of ledger.keys.keys())
    expect(
      usageMismatches(
        key,
        ledger,
        report.keys.find((k) => k.key === key),
      ),
    ).toEqual([]);
  const good = report.keys.find((k) => k.key === 'good')!;
  // The abandoned download was cut at the replica (11 MB does not fit the socket buffers).
  expect(good.aborted).toBe(1);
  expect(good.refused).toBe(2);
  expect(good.routes['/status.json']!.requests).toBe(4);
  expect(good.routes[`/tiles/:timestamp.json`]!.requests).toBe(1);
  expect(report.keys.find((k) => k.key === 'limited')).toMatchObject({
    requests: 5,
    refused: 2,
    limit: 3,
    statuses: { '200': 3, '429': 2 },
  });
});

it('the counts are in usage.json beside the key file', async () => {
  const file = JSON.parse(await fs.readFile(path.join(api.root, 'usage.json'), 'utf8'));
  const hours = Object.values(file.hours) as Array<Record<string, { requests: number }>>;
  const good = hours.reduce((sum, keys) => sum + (keys.good?.requests ?? 0), 0);
  expect(good).toBe(ledger.requests('good'));
});

it('the CLI prints the same report as /usage, and a table', async () => {
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, [KEYS_ENTRY, 'usage', ...args, '--file', api.keysFile], {
      encoding: 'utf8',
      // The replica's default limit (the harness's), as an operator's CLI shares its config.
      env: { PATH: process.env.PATH ?? '', RADAR_RATE_LIMIT: '1000' },
    });
  const json = JSON.parse(cli('--since', '2h', '--json')) as UsageReport;
  expect(json).toEqual(await usage());
  expect(JSON.parse(cli('--since', '2h', '--json', '--key', 'limited')).keys).toEqual(
    (await usage('since=2h&key=limited')).keys,
  );
  const byApp = JSON.parse(cli('--since', '2h', '--json', '--app', APPS.mobile)) as UsageReport;
  expect(byApp.keys.map((k) => k.key)).toEqual(['unbound']);
  const table = cli('--since', '2h');
  expect(table).toMatch(new RegExp(`^good\\s+${ledger.requests('good')}\\s`, 'm'));
  expect(table).toMatch(/^limited\s+5\s+\S+ \S+\s+2\s+0\s+/m);
});

it('/usage refuses a malformed query with the error record', async () => {
  for (const query of ['since=7', 'since=24h&since=1h', 'tenant=x', 'key=', 'since=0d']) {
    const res = await request(admin(), `/usage?${query}`);
    expect([query, res.status, res.json()]).toEqual([
      query,
      400,
      { error: { code: 400, message: 'Bad Request' } },
    ]);
  }
});

it('the top-keys gauge names the busiest keys by id with their requests this hour', async () => {
  const text = await scrape(api.replica.adminPort);
  const report = await usage('since=1h');
  for (const k of report.keys)
    expect([k.key, sample(text, 'radar_usage_top_key_requests', { key: k.key })]).toEqual([
      k.key,
      k.requests,
    ]);
  expect(text).not.toContain(KEYS.good);
  expect(sample(text, 'radar_usage_flushes_total', { outcome: 'failed' })).toBe(0);
});
