/**
 * The API description is the contract: every conformance response, answered in-process by
 * real replicas, validates against `openapi/openapi.yaml` (status documented for its
 * operation, documented headers present and well-formed, no undocumented header, media type
 * and JSON body). The cases run without an Origin, from an allowed origin and from another
 * one, with `*` CORS and with a listed origin; then the answers that need a broken replica
 * (nothing published, a failing store or limiter, a description never built). Finally every
 * status the description documents must have been seen, so a documented answer the service
 * no longer gives is a drift too.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { StoreUnavailableError } from '../../src/domain/archive-errors';
import { COLOUR_SCHEMES } from '../../src/palette/colour-schemes';
import type { ArchiveStore, RateLimiter } from '../../src/domain/ports';
import type { InjectResponse } from '../../src/http/inject';
import {
  APPS,
  auth,
  type EmbeddedApi,
  type EmbeddedApiOptions,
  KEYS,
  startEmbeddedApi,
} from '../harness/embedded-api';
import { loadOpenApiContract, type OpenApiContract } from '../harness/openapi-contract';
import { recentTimestamp } from '../harness/timestamps';
import { sparseArchive, sparseForecastArchive } from '../harness/tile-conformance';
import { forecastArchive, forecastFileName } from '../harness/forecast-archives';
import { waitFor } from '../harness/wait';
import { FOREIGN_TILE, schemeArchive } from '../fixtures/palette-tiles';

jest.setTimeout(90_000);

const TS = recentTimestamp(3);
const archive = sparseArchive(TS); // zooms 0-7; every 7th tile missing
const ARCHIVE = `/tiles/${TS}.pmtiles`;
const TILE = `/tiles/${TS}/7/10/20.png`;
const EMPTY_TILE = `/tiles/${TS}/7/0/3.png`;
const TILEJSON = `/tiles/${TS}.json`;
/** An archive of palette PNG tiles (one foreign tile) for the colour-scheme routes. */
const SCHEME_TS = recentTimestamp(4);
const schemeTiles = schemeArchive(SCHEME_TS, true);
const SCHEME_TILE = `/tiles/${SCHEME_TS}/cividis/7/10/20.png`;
const SCHEME_TILEJSON = `/tiles/${SCHEME_TS}/cividis.json`;
const LEGEND = '/legend.json';
/** Forecast frames: the sparse archive as base TS lead 30, rendered palette tiles as SCHEME_TS's. */
const FORECAST = { base: TS, lead: 30 };
const forecastSparse = sparseForecastArchive(FORECAST);
const SCHEME_FORECAST = { base: SCHEME_TS, lead: 30 };
const forecastRendered = forecastArchive(SCHEME_FORECAST, { leads: [30] });
const F_ARCHIVE = `/forecasts/${TS}/30.pmtiles`;
const F_TILE = `/forecasts/${TS}/30/7/10/20.png`;
const F_EMPTY_TILE = `/forecasts/${TS}/30/7/0/3.png`;
const F_TILEJSON = `/forecasts/${TS}/30.json`;
const F_SCHEME_TILE = `/forecasts/${SCHEME_TS}/30/cividis/0/0/0.png`;
const F_SCHEME_TILEJSON = `/forecasts/${SCHEME_TS}/30/cividis.json`;
const ALLOWED = 'https://maps.example';
const OTHER = 'https://elsewhere.example';
const OLD_DATE = 'Sat, 01 Jan 2000 00:00:00 GMT';
const FUTURE_DATE = 'Fri, 01 Jan 2100 00:00:00 GMT';

type Headers = Record<string, string | string[]>;

interface Case {
  readonly path: string;
  readonly method?: string;
  /** Credentials: the good key (default), none, or another key. */
  readonly key?: 'good' | 'none' | 'unknown' | 'disabled' | 'unbound' | 'limited';
  readonly headers?: (etags: Record<string, string>) => Headers;
  readonly status: number;
}

const credentials: Record<NonNullable<Case['key']>, Headers> = {
  good: auth(),
  none: {},
  unknown: auth('rk_unknown-key-0123456789'),
  disabled: auth(KEYS.disabled),
  unbound: auth(KEYS.unbound, APPS.web),
  limited: auth(KEYS.limited),
};

const CREDENTIALED = [
  '/status.json',
  ARCHIVE,
  TILE,
  TILEJSON,
  SCHEME_TILE,
  SCHEME_TILEJSON,
  LEGEND,
  F_ARCHIVE,
  F_TILE,
  F_TILEJSON,
  F_SCHEME_TILE,
  F_SCHEME_TILEJSON,
];
const ROUTES = [...CREDENTIALED, '/openapi.json'];
const PREFLIGHT = {
  'Access-Control-Request-Method': 'GET',
  'Access-Control-Request-Headers': 'authorization,x-app,range',
};

/** Every route, every outcome a healthy replica gives (the limited key comes last). */
const CASES: readonly Case[] = [
  // The status document.
  { path: '/status.json', status: 200 },
  { path: '/status.json', headers: () => ({ 'Accept-Encoding': 'gzip' }), status: 200 },
  { path: '/status.json', headers: () => ({ 'Accept-Encoding': 'br' }), status: 200 },
  { path: '/status.json', method: 'HEAD', status: 200 },
  { path: '/status.json', headers: (e) => ({ 'If-None-Match': e.status! }), status: 304 },
  { path: '/status.json', headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  // The archive.
  { path: ARCHIVE, status: 200 },
  { path: ARCHIVE, method: 'HEAD', status: 200 },
  { path: ARCHIVE, headers: () => ({ Range: 'bytes=0-16383' }), status: 206 },
  { path: ARCHIVE, headers: () => ({ Range: 'bytes=-100' }), status: 206 },
  { path: ARCHIVE, method: 'HEAD', headers: () => ({ Range: 'bytes=0-9' }), status: 206 },
  {
    path: ARCHIVE,
    headers: (e) => ({ Range: 'bytes=0-1023', 'If-Range': e.archive! }),
    status: 206,
  },
  { path: ARCHIVE, headers: (e) => ({ 'If-None-Match': e.archive! }), status: 304 },
  { path: ARCHIVE, headers: () => ({ 'If-Modified-Since': FUTURE_DATE }), status: 304 },
  { path: ARCHIVE, headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  { path: ARCHIVE, headers: () => ({ 'If-Unmodified-Since': OLD_DATE }), status: 412 },
  { path: ARCHIVE, headers: () => ({ Range: 'bytes=99999999-' }), status: 416 },
  { path: '/tiles/202001010000.pmtiles', status: 404 },
  { path: '/tiles/202613011200.pmtiles', status: 400 },
  // z/x/y tiles.
  { path: TILE, status: 200 },
  { path: EMPTY_TILE, status: 200 },
  { path: TILE, method: 'HEAD', status: 200 },
  { path: TILE, headers: (e) => ({ 'If-None-Match': e.tile! }), status: 304 },
  { path: TILE, headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  { path: `/tiles/${TS}/8/0/0.png`, status: 400 },
  { path: `/tiles/${TS}/07/0/0.png`, status: 400 },
  { path: '/tiles/202001010000/0/0/0.png', status: 404 },
  // TileJSON.
  { path: TILEJSON, status: 200 },
  { path: TILEJSON, method: 'HEAD', status: 200 },
  { path: TILEJSON, headers: (e) => ({ 'If-None-Match': e.tilejson! }), status: 304 },
  { path: TILEJSON, headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  { path: '/tiles/202602301200.json', status: 400 },
  { path: '/tiles/202001010000.json', status: 404 },
  // Tiles and TileJSON in a colour scheme, and the legend.
  { path: SCHEME_TILE, status: 200 },
  { path: `/tiles/${SCHEME_TS}/grey-dbz/7/0/3.png`, status: 200 },
  { path: SCHEME_TILE, method: 'HEAD', status: 200 },
  { path: SCHEME_TILE, headers: (e) => ({ 'If-None-Match': e.schemeTile! }), status: 304 },
  { path: SCHEME_TILE, headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  { path: `/tiles/${SCHEME_TS}/rainbow/7/10/20.png`, status: 400 },
  { path: `/tiles/${SCHEME_TS}/nws/8/0/0.png`, status: 400 },
  { path: '/tiles/202001010000/nws/0/0/0.png', status: 404 },
  { path: `/tiles/${SCHEME_TS}/cividis/${FOREIGN_TILE.join('/')}.png`, status: 500 },
  { path: SCHEME_TILEJSON, status: 200 },
  { path: SCHEME_TILEJSON, method: 'HEAD', status: 200 },
  { path: SCHEME_TILEJSON, headers: (e) => ({ 'If-None-Match': e.schemeTilejson! }), status: 304 },
  { path: SCHEME_TILEJSON, headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  { path: `/tiles/${SCHEME_TS}/rainbow.json`, status: 400 },
  { path: '/tiles/202001010000/cividis.json', status: 404 },
  // Forecast frames: the same contracts under /forecasts/{base}/{lead}.
  { path: F_ARCHIVE, status: 200 },
  { path: F_ARCHIVE, method: 'HEAD', status: 200 },
  { path: F_ARCHIVE, headers: () => ({ Range: 'bytes=0-16383' }), status: 206 },
  { path: F_ARCHIVE, headers: (e) => ({ 'If-None-Match': e.fArchive! }), status: 304 },
  { path: F_ARCHIVE, headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  { path: F_ARCHIVE, headers: () => ({ Range: 'bytes=99999999-' }), status: 416 },
  { path: `/forecasts/${TS}/40.pmtiles`, status: 404 },
  { path: '/forecasts/202001010000/30.pmtiles', status: 404 },
  { path: `/forecasts/${TS}/030.pmtiles`, status: 400 },
  { path: '/forecasts/202613011200/30.pmtiles', status: 400 },
  { path: `/tiles/forecast-${TS}-030.pmtiles`, status: 400 },
  { path: F_TILE, status: 200 },
  { path: F_EMPTY_TILE, status: 200 },
  { path: F_TILE, method: 'HEAD', status: 200 },
  { path: F_TILE, headers: (e) => ({ 'If-None-Match': e.fTile! }), status: 304 },
  { path: F_TILE, headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  { path: `/forecasts/${TS}/30/8/0/0.png`, status: 400 },
  { path: `/forecasts/${TS}/0/0/0/0.png`, status: 400 },
  { path: `/forecasts/${TS}/40/0/0/0.png`, status: 404 },
  { path: F_TILEJSON, status: 200 },
  { path: F_TILEJSON, method: 'HEAD', status: 200 },
  { path: F_TILEJSON, headers: (e) => ({ 'If-None-Match': e.fTilejson! }), status: 304 },
  { path: F_TILEJSON, headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  { path: `/forecasts/${TS}/1441.json`, status: 400 },
  { path: `/forecasts/${TS}/40.json`, status: 404 },
  { path: F_SCHEME_TILE, status: 200 },
  { path: F_SCHEME_TILE, method: 'HEAD', status: 200 },
  { path: F_SCHEME_TILE, headers: (e) => ({ 'If-None-Match': e.fSchemeTile! }), status: 304 },
  { path: F_SCHEME_TILE, headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  { path: `/forecasts/${SCHEME_TS}/30/rainbow/0/0/0.png`, status: 400 },
  { path: `/forecasts/${SCHEME_TS}/40/nws/0/0/0.png`, status: 404 },
  { path: F_SCHEME_TILEJSON, status: 200 },
  { path: F_SCHEME_TILEJSON, method: 'HEAD', status: 200 },
  {
    path: F_SCHEME_TILEJSON,
    headers: (e) => ({ 'If-None-Match': e.fSchemeTilejson! }),
    status: 304,
  },
  { path: F_SCHEME_TILEJSON, headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  { path: `/forecasts/${SCHEME_TS}/30/rainbow.json`, status: 400 },
  { path: `/forecasts/${SCHEME_TS}/40/cividis.json`, status: 404 },
  { path: LEGEND, status: 200 },
  { path: LEGEND, headers: () => ({ 'Accept-Encoding': 'gzip' }), status: 200 },
  { path: LEGEND, headers: () => ({ 'Accept-Encoding': 'br' }), status: 200 },
  { path: LEGEND, method: 'HEAD', status: 200 },
  { path: LEGEND, headers: (e) => ({ 'If-None-Match': e.legend! }), status: 304 },
  { path: LEGEND, headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  // This description.
  { path: '/openapi.json', key: 'none', status: 200 },
  { path: '/openapi.json', key: 'none', method: 'HEAD', status: 200 },
  {
    path: '/openapi.json',
    key: 'none',
    headers: (e) => ({ 'If-None-Match': e.openapi! }),
    status: 304,
  },
  { path: '/openapi.json', key: 'none', headers: () => ({ 'If-Match': '"other"' }), status: 412 },
  // Every route: refused credentials, other methods, protocol refusals, OPTIONS.
  ...CREDENTIALED.flatMap((route): Case[] => [
    { path: route, key: 'none', status: 401 },
    { path: route, key: 'unknown', status: 401 },
    { path: route, key: 'disabled', status: 403 },
    { path: route, key: 'unbound', status: 403 },
  ]),
  ...ROUTES.flatMap((route): Case[] => [
    { path: route, method: 'DELETE', status: 405 },
    { path: route, method: 'POST', key: 'none', status: 405 },
    { path: route, headers: () => ({ Expect: 'something-else' }), status: 417 },
    { path: route, headers: () => ({ Host: ['a.example', 'b.example'] }), status: 400 },
    { path: route, method: 'OPTIONS', key: 'none', status: 204 },
    { path: route, method: 'OPTIONS', key: 'none', headers: () => PREFLIGHT, status: 204 },
    { path: route, method: 'OPTIONS', key: 'none', headers: () => ({ Expect: 'x' }), status: 417 },
    {
      path: route,
      method: 'OPTIONS',
      key: 'none',
      headers: () => ({ Host: ['a.example', 'b.example'] }),
      status: 400,
    },
  ]),
  // The limited key (3 per window): spent, then refused on every route.
  { path: '/status.json', key: 'limited', status: 200 },
  { path: ARCHIVE, key: 'limited', headers: () => ({ Range: 'bytes=0-9' }), status: 206 },
  { path: TILE, key: 'limited', status: 200 },
  ...CREDENTIALED.map((route): Case => ({
    path: route,
    key: 'limited',
    status: 429,
  })),
];

let contract: OpenApiContract;
const started: EmbeddedApi[] = [];

beforeAll(() => {
  contract = loadOpenApiContract();
});
afterAll(() => Promise.all(started.map((api) => api.stop())));

async function start(options: EmbeddedApiOptions, publish = true): Promise<EmbeddedApi> {
  const prepare = publish
    ? async (_root: string, dataDir: string) => {
        await fs.writeFile(path.join(dataDir, `${TS}.pmtiles`), archive);
        await fs.writeFile(path.join(dataDir, `${SCHEME_TS}.pmtiles`), schemeTiles);
        await fs.writeFile(path.join(dataDir, forecastFileName(FORECAST)), forecastSparse);
        await fs.writeFile(path.join(dataDir, forecastFileName(SCHEME_FORECAST)), forecastRendered);
      }
    : undefined;
  const api = await startEmbeddedApi({ ...options, ...(prepare ? { prepare } : {}) });
  started.push(api);
  if (publish) {
    for (const ts of [TS, SCHEME_TS]) await api.waitForListed(ts);
    await waitFor(
      // Both bases are ingested in one pass: TS listed, SCHEME_TS readable within its grace.
      async () =>
        (await api.inject('/status.json', { headers: auth() })).json<{ forecasts: unknown[] }>()
          .forecasts.length === 1,
      10_000,
      'forecast frames listed',
      50,
    );
  }
  return api;
}

/** Sends `c` in-process and returns the contract's problems (with an unexpected status). */
async function problemsOf(api: EmbeddedApi, c: Case, extra: Headers = {}): Promise<string[]> {
  const method = c.method ?? 'GET';
  const sent = { ...credentials[c.key ?? 'good'], ...(c.headers?.(etags) ?? {}), ...extra };
  const res: InjectResponse = await api.inject(c.path, { method, headers: sent });
  const label = `${method} ${c.path} ${JSON.stringify(sent)}`;
  const problems = contract.check({
    method,
    target: c.path,
    status: res.status,
    headers: res.headers,
    body: res.body,
  });
  if (res.status !== c.status)
    problems.unshift(`${label}: status ${res.status}, expected ${c.status}`);
  return problems;
}

let etags: Record<string, string> = {};

async function currentEtags(api: EmbeddedApi): Promise<Record<string, string>> {
  const etag = async (route: string, headers: Headers) =>
    String((await api.inject(route, { headers })).headers.etag);
  return {
    status: await etag('/status.json', auth()),
    archive: await etag(ARCHIVE, { ...auth(), Range: 'bytes=0-0' }),
    tile: await etag(TILE, auth()),
    tilejson: await etag(TILEJSON, auth()),
    schemeTile: await etag(SCHEME_TILE, auth()),
    schemeTilejson: await etag(SCHEME_TILEJSON, auth()),
    legend: await etag(LEGEND, auth()),
    openapi: await etag('/openapi.json', {}),
    fArchive: await etag(F_ARCHIVE, { ...auth(), Range: 'bytes=0-0' }),
    fTile: await etag(F_TILE, auth()),
    fTilejson: await etag(F_TILEJSON, auth()),
    fSchemeTile: await etag(F_SCHEME_TILE, auth()),
    fSchemeTilejson: await etag(F_SCHEME_TILEJSON, auth()),
  };
}

describe.each([
  ['any origin (*)', [undefined, ALLOWED]],
  ['a listed origin', [undefined, ALLOWED, OTHER]],
] as const)('every conformance response matches the description, CORS %s', (label, origins) => {
  it('in-process, with and without Origin', async () => {
    const api = await start({ corsOrigins: [label === 'a listed origin' ? ALLOWED : '*'] });
    etags = await currentEtags(api);
    const problems: string[] = [];
    // The limited key's window is spent by the first pass: its cases run once.
    for (const origin of origins) {
      for (const c of CASES) {
        if (c.key === 'limited' && origin !== undefined) continue;
        problems.push(...(await problemsOf(api, c, origin ? { Origin: origin } : {})));
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the answers of a replica in trouble match the description', () => {
  it('nothing published yet: /status.json is 503 with Retry-After', async () => {
    const api = await start({}, false);
    expect(await problemsOf(api, { path: '/status.json', status: 503 })).toEqual([]);
    expect(await problemsOf(api, { path: ARCHIVE, status: 404 })).toEqual([]);
  });

  it('a store that fails (503) or breaks (500), and a limiter that breaks (500)', async () => {
    let mode: 'store-unavailable' | 'store-broken' | 'limiter-broken' = 'store-unavailable';
    const failingStore = (store: ArchiveStore): ArchiveStore => ({
      openRange: () =>
        Promise.reject(
          mode === 'store-unavailable'
            ? new StoreUnavailableError('injected outage', { retryAfterS: 2 })
            : new Error('injected defect'),
        ),
      readCached: () => undefined,
      probe: () => store.probe(),
      close: () => store.close(),
    });
    const failingLimiter = (limiter: RateLimiter): RateLimiter => ({
      consume: (keyId, limit) =>
        mode === 'limiter-broken'
          ? Promise.reject(new Error('injected limiter defect'))
          : limiter.consume(keyId, limit),
    });
    const api = await start({
      decoratePorts: (ports) => ({
        ...ports,
        store: failingStore(ports.store),
        limiter: failingLimiter(ports.limiter),
      }),
    });
    const problems: string[] = [];
    for (const origin of [undefined, ALLOWED]) {
      const extra: Headers = origin ? { Origin: origin } : {};
      mode = 'store-unavailable';
      for (const route of [
        ARCHIVE,
        TILE,
        TILEJSON,
        SCHEME_TILE,
        SCHEME_TILEJSON,
        F_ARCHIVE,
        F_TILE,
        F_TILEJSON,
        F_SCHEME_TILE,
        F_SCHEME_TILEJSON,
      ])
        problems.push(...(await problemsOf(api, { path: route, status: 503 }, extra)));
      mode = 'store-broken';
      for (const route of [ARCHIVE, `/tiles/${TS}/6/5/20.png`, TILEJSON])
        problems.push(...(await problemsOf(api, { path: route, status: 500 }, extra)));
      mode = 'limiter-broken';
      for (const route of CREDENTIALED)
        problems.push(...(await problemsOf(api, { path: route, status: 500 }, extra)));
    }
    expect(problems).toEqual([]);
  });

  it('a description never built: /openapi.json is 503 with Retry-After', async () => {
    const unbuilt = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-unbuilt-'));
    const api = await start({ openApiAssetsDir: unbuilt }, false);
    expect(await problemsOf(api, { path: '/openapi.json', key: 'none', status: 503 })).toEqual([]);
    await fs.rm(unbuilt, { recursive: true, force: true });
  });
});

describe('the description covers what the service does, and nothing it does not', () => {
  it('every documented status of every operation was answered above', () => {
    // A last-resort 500 of the description route needs a defect in code that reads memory only.
    const unreachable = new Set(['getOpenApi 500']);
    const missing = [...contract.documented()].filter(
      (s) => !contract.covered().has(s) && !unreachable.has(s),
    );
    expect(missing).toEqual([]);
  });

  it('the scheme parameter lists exactly the schemes of the table', () => {
    const components = contract.document.components as {
      parameters: Record<string, { schema: { enum: string[] } }>;
    };
    expect(components.parameters.Scheme!.schema.enum).toEqual(COLOUR_SCHEMES.map((s) => s.id));
  });

  it('the served description is the source, converted (npm run build is current)', async () => {
    const api = await start({}, false);
    const res = await api.inject('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual(contract.document);
  });
});
