/**
 * Per-key allowed origins with the file key store, in-process through the core: 403 before the rate
 * limit (no point spent), Referer fallback, requests naming no origin, `requireOrigin`,
 * preflights without credentials, and changes taking effect within the reload time.
 */
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import { type KeyRegistryData } from '../../src/domain/key-records';
import { buildArchive } from '../fixtures/archives';
import { APPS, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';
import { BROWSER_KEY, registryWithBrowserKey } from '../harness/browser-key-registry';
import type { RawResponse } from '../harness/http-client';
import { reportFigure, waitFor } from '../harness/wait';

const TS = '202611221400';
let api: EmbeddedApi;

function registry(origins?: string[], requireOrigin?: boolean): KeyRegistryData {
  return registryWithBrowserKey({ limit: 50, origins, requireOrigin });
}

const creds = { Authorization: `Bearer ${BROWSER_KEY}`, 'X-App': `Bearer ${APPS.web}` };
const get = (headers: Record<string, string>, path = '/status.json') =>
  api.inject(path, { headers: { ...creds, ...headers } });
const remaining = (res: RawResponse) => Number(res.headers['x-ratelimit-remaining']);

/** Rewrites the key file and waits until a probe request sees the change (bounded at 5 s). */
async function reconfigure(
  data: KeyRegistryData,
  probe: Record<string, string>,
  expected: number,
): Promise<number> {
  await writeKeyFile(api.keysFile, data);
  // Key changes are promised within 2 s; the wait allows 5 s on a busy machine, figure reported.
  return waitFor(async () => (await get(probe)).status === expected, 5000, 'key file change', 25);
}

beforeAll(async () => {
  api = await startEmbeddedApiWith(TS, buildArchive(TS, 2));
  await reconfigure(
    registry(['https://maps.example.com', 'https://*.acme.org']),
    { Origin: 'https://evil.example' },
    403,
  );
});
afterAll(() => api.stop());

it('an allowed exact or wildcard origin passes, on every guarded route', async () => {
  for (const origin of ['https://maps.example.com', 'https://a.acme.org', 'https://x.y.acme.org']) {
    for (const path of ['/status.json', `/tiles/${TS}.pmtiles`, `/tiles/${TS}/0/0/0.png`]) {
      const res = await get({ Origin: origin }, path);
      expect(res.status).toBe(200);
    }
  }
});

it('a foreign origin gets 403 with the record, before the rate limit (no point spent)', async () => {
  const before = remaining(await get({ Origin: 'https://maps.example.com' }));
  for (const origin of ['https://evil.example', 'https://acme.org', 'http://a.acme.org', 'null']) {
    const res = await get({ Origin: origin }, `/tiles/${TS}/0/0/0.png`);
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({ error: { code: 403, message: 'Forbidden' } });
    expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
  }
  const after = remaining(await get({ Origin: 'https://maps.example.com' }));
  expect(after).toBe(before - 1); // only the two allowed probes cost points
});

it('without Origin, the Referer origin decides', async () => {
  expect((await get({ Referer: 'https://maps.example.com/radar?x=1' })).status).toBe(200);
  expect((await get({ Referer: 'https://evil.example/page' })).status).toBe(403);
  expect((await get({ Referer: 'not a url' })).status).toBe(403);
  // Origin wins over Referer when both are sent.
  expect(
    (await get({ Origin: 'https://evil.example', Referer: 'https://maps.example.com/' })).status,
  ).toBe(403);
});

it('a request naming no origin passes (server-side client) unless the key requires one', async () => {
  expect((await get({})).status).toBe(200);
  const ms = await reconfigure(
    registry(['https://maps.example.com', 'https://*.acme.org'], true),
    {},
    403,
  );
  reportFigure('requireOrigin took effect after', ms);
  expect((await get({})).json()).toEqual({ error: { code: 403, message: 'Forbidden' } });
  expect((await get({ Origin: 'https://maps.example.com' })).status).toBe(200);
});

it('preflights need no credentials and are answered whatever the key allows', async () => {
  const res = await api.inject(`/tiles/${TS}/0/0/0.png`, {
    method: 'OPTIONS',
    headers: {
      Origin: 'https://evil.example',
      'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Headers': 'authorization, x-app',
    },
  });
  expect(res.status).toBe(204);
  expect(res.headers['access-control-allow-origin']).toBe('*');
});

it('removing the restriction re-allows other sites within the reload time', async () => {
  const ms = await reconfigure(registry(), { Origin: 'https://evil.example' }, 200);
  reportFigure('origin restriction removed after', ms);
});
