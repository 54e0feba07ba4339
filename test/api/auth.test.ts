/**
 * 401 vs 403 matrix and the order of checks, in-process through the core. Paths that are no
 * API route are left to the server's final 404 (test/stack/unknown-paths.test.ts).
 */
import { APPS, auth, KEYS, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';
import { buildArchive } from '../fixtures/archives';

const TS = '202611221400';
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApiWith(TS, buildArchive(TS));
});
afterAll(() => api.stop());

const paths = ['/status.json', `/tiles/${TS}.pmtiles`];

function expectErrorRecord(
  res: { status: number; body: Buffer; headers: Record<string, unknown> },
  code: number,
  message: string,
) {
  expect(res.status).toBe(code);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(res.body.toString())).toEqual({ error: { code, message } });
}

describe.each(paths)('authentication on %s', (path) => {
  const unauthorized: Array<[string, Record<string, string>]> = [
    ['no headers', {}],
    ['missing X-App', { Authorization: `Bearer ${KEYS.good}` }],
    ['missing Authorization', { 'X-App': `Bearer ${APPS.web}` }],
    ['key without Bearer', { Authorization: KEYS.good, 'X-App': `Bearer ${APPS.web}` }],
    ['app without Bearer', { Authorization: `Bearer ${KEYS.good}`, 'X-App': APPS.web }],
    ['Basic scheme', { Authorization: `Basic ${KEYS.good}`, 'X-App': `Bearer ${APPS.web}` }],
    ['empty token', { Authorization: 'Bearer ', 'X-App': `Bearer ${APPS.web}` }],
    ['unknown key', auth('rk_unknown', APPS.web)],
    ['unknown app', auth(KEYS.good, 'nobody')],
    [
      'token with spaces',
      { Authorization: `Bearer ${KEYS.good} extra`, 'X-App': `Bearer ${APPS.web}` },
    ],
  ];
  it.each(unauthorized)(
    '401 for %s, with WWW-Authenticate and no rate-limit headers',
    async (_name, headers) => {
      const res = await api.inject(path, { headers });
      expectErrorRecord(res, 401, 'Unauthorized');
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    },
  );

  const forbidden: Array<[string, Record<string, string>]> = [
    ['disabled key', auth(KEYS.disabled, APPS.web)],
    ['disabled app', auth(KEYS.good, APPS.off)],
    ['app not bound to key', auth(KEYS.good, APPS.mobile)],
    ['key bound elsewhere', auth(KEYS.unbound, APPS.web)],
  ];
  it.each(forbidden)('403 for %s, with no rate-limit headers', async (_name, headers) => {
    const res = await api.inject(path, { headers });
    expectErrorRecord(res, 403, 'Forbidden');
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('accepts the Bearer word in any case', async () => {
    const res = await api.inject(path, {
      headers: { Authorization: `bEaReR ${KEYS.good}`, 'X-App': `BEARER ${APPS.web}` },
    });
    expect(res.status).toBe(200);
  });
});

describe('order of checks', () => {
  it('405 comes before authentication', async () => {
    const res = await api.inject('/status.json', { method: 'POST' });
    expectErrorRecord(res, 405, 'Method Not Allowed');
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });
  it('401 comes before validation (bad timestamp, no credentials)', async () => {
    const res = await api.inject('/tiles/2026.pmtiles');
    expectErrorRecord(res, 401, 'Unauthorized');
  });
  it('403 comes before validation and lookup', async () => {
    const res = await api.inject('/tiles/209901010000.pmtiles', {
      headers: auth(KEYS.disabled),
    });
    expectErrorRecord(res, 403, 'Forbidden');
  });
  it('every response carries X-Content-Type-Options: nosniff', async () => {
    const res = await api.inject('/status.json');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('path matching is exact', () => {
  it.each([
    '/STATUS.JSON',
    '/status.json/',
    '/Status.json',
    `/tiles/${TS}.PMTILES`,
    `/tiles/${TS}.pmtiles/`,
    '/tiles/',
    '/tiles',
    '/nope',
  ])('%s is no route: the core answers the 404 record, with or without credentials', async (p) => {
    for (const headers of [{}, auth()]) {
      const res = await api.inject(p, { headers });
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({ error: { code: 404, message: 'Not Found' } });
      expect(res.answer.route).toBe('unmatched');
      expect(res.answer.caller).toBeUndefined();
    }
  });

  it("a GET of a page (/) is the Koa app's to serve: the core routes it on", async () => {
    await expect(api.inject('/', { headers: auth() })).rejects.toThrow(/a page/);
  });
});
