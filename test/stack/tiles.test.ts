/**
 * z/x/y tiles and TileJSON on one embedded replica: the shared conformance suite (an observed
 * frame and a forecast frame), plus the public base URL of TileJSON with and without a
 * trusted proxy.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { PMTiles } from 'pmtiles';
import { createRadarClient } from '../../src/client';
import { createBufferSource } from '../fixtures/buffer-source';
import { auth, KEYS, APPS, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { forecastFileName } from '../harness/forecast-archives';
import {
  describeTileConformance,
  forecastUrls,
  sparseArchive,
  sparseForecastArchive,
} from '../harness/tile-conformance';
import { waitFor } from '../harness/wait';

const TS = '202611221400';
const archive = sparseArchive(TS);
const FORECAST = { base: TS, lead: 30 };
const forecastArchive = sparseForecastArchive(FORECAST);
let api: EmbeddedApi;
/** Behind a trusted proxy, no forwarded host allowed. */
let proxied: EmbeddedApi;
/** Behind a trusted proxy that may forward `radar.example.com:8443`. */
let listed: EmbeddedApi;
/** With a fixed public URL. */
let fixed: EmbeddedApi;
/** Serving a forecast frame (its own replica: the limited key's points are its own). */
let forecasts: EmbeddedApi;

beforeAll(async () => {
  [api, proxied, listed, fixed, forecasts] = await Promise.all([
    startEmbeddedApi(),
    startEmbeddedApi({ trustProxy: true }),
    startEmbeddedApi({
      trustProxy: true,
      env: { RADAR_PUBLIC_HOSTS: 'Radar.Example.com:8443,cdn.example.net' },
    }),
    startEmbeddedApi({ env: { RADAR_PUBLIC_URL: 'https://tiles.example.org/radar/' } }),
    startEmbeddedApi(),
  ]);
  for (const server of [api, proxied, listed, fixed]) {
    await server.publish(TS, archive);
    await server.waitForListed(TS);
  }
  await fs.writeFile(path.join(forecasts.dataDir, forecastFileName(FORECAST)), forecastArchive);
  await waitFor(
    async () =>
      (await request(forecasts.baseUrl, '/forecasts/202611221400/30.json', { headers: auth() }))
        .status === 200,
    10_000,
    'the forecast frame readable',
    50,
  );
});
afterAll(async () => {
  await Promise.all([api, proxied, listed, fixed, forecasts].map((server) => server.stop()));
});

describeTileConformance('one replica', () => ({
  baseUrls: [api.baseUrl],
  timestamp: TS,
  archive,
  auth: auth(),
  forbiddenAuth: auth(KEYS.unbound, APPS.web),
  limitedAuth: auth(KEYS.limited),
  limitedLimit: 3,
}));

describeTileConformance('one replica, a forecast frame', () => ({
  baseUrls: [forecasts.baseUrl],
  timestamp: TS,
  archive: forecastArchive,
  auth: auth(),
  forbiddenAuth: auth(KEYS.unbound, APPS.web),
  limitedAuth: auth(KEYS.limited),
  limitedLimit: 3,
  urls: forecastUrls(FORECAST),
}));

describe('TileJSON public base URL', () => {
  const template = async (server: EmbeddedApi, headers: Record<string, string>) => {
    const res = await request(server.baseUrl, `/tiles/${TS}.json`, {
      headers: { ...auth(), ...headers },
    });
    return {
      status: res.status,
      vary: res.headers.vary,
      tiles: res.status === 200 ? res.json<{ tiles: string[] }>().tiles : [],
    };
  };
  const tiles = (base: string) => [`${base}/tiles/${TS}/{z}/{x}/{y}.png`];

  it("names the request's own host and ignores X-Forwarded-* unless the proxy is trusted", async () => {
    const res = await template(api, {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'radar.example.com',
    });
    expect(res.tiles).toEqual(tiles(api.baseUrl));
    expect(res.vary).toBe('Origin');
  });

  it('behind a trusted proxy takes the scheme from X-Forwarded-Proto and never an unlisted X-Forwarded-Host', async () => {
    const res = await template(proxied, {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'evil.example',
    });
    expect(res.tiles).toEqual(tiles(proxied.baseUrl.replace('http:', 'https:')));
    expect(res.vary).toBe('Origin, X-Forwarded-Proto');
  });

  it('names a forwarded host of RADAR_PUBLIC_HOSTS, and varies on it', async () => {
    const res = await template(listed, {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'radar.example.COM:8443',
    });
    expect(res.tiles).toEqual(tiles('https://radar.example.com:8443'));
    expect(res.vary).toBe('Origin, X-Forwarded-Proto, X-Forwarded-Host');
  });

  it('RADAR_PUBLIC_URL wins over every request field', async () => {
    const res = await template(fixed, { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example' });
    expect(res.tiles).toEqual(tiles('https://tiles.example.org/radar'));
    expect(res.vary).toBe('Origin');
  });

  it.each([
    ['a forwarded host outside the list', () => listed, { 'X-Forwarded-Host': 'evil.example' }],
    ['a forwarded host with a path', () => listed, { 'X-Forwarded-Host': 'cdn.example.net/x' }],
    ['a forwarded host with markup', () => listed, { 'X-Forwarded-Host': 'a"><script>' }],
    [
      'a forwarded host with userinfo',
      () => listed,
      { 'X-Forwarded-Host': 'evil.com:80@cdn.example.net' },
    ],
    [
      'a forwarded port out of range',
      () => listed,
      { 'X-Forwarded-Host': 'cdn.example.net:99999' },
    ],
    ['an unknown scheme', () => proxied, { 'X-Forwarded-Proto': 'javascript' }],
  ])('400 for %s', async (_label, server, headers) => {
    expect((await template(server(), headers)).status).toBe(400);
  });

  it.each([
    ['userinfo', 'evil.com:80@good'],
    ['a port out of range', 'good.example:99999'],
  ])('400 for a Host with %s, on every route', async (_label, host) => {
    for (const path of [`/tiles/${TS}.json`, '/status.json', '/nowhere']) {
      const res = await request(api.baseUrl, path, { headers: { ...auth(), Host: host } });
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({ error: { code: 400, message: 'Bad Request' } });
    }
  });
});

describe('client library helpers', () => {
  it('tileUrl, tileJson and tile go through the real server with both credentials', async () => {
    const client = createRadarClient({
      baseUrl: `${api.baseUrl}/`,
      credentials: { apiKey: KEYS.good, appId: APPS.web },
    });
    expect(client.tileUrl(TS)).toBe(`${api.baseUrl}/tiles/${TS}/{z}/{x}/{y}.png`);
    expect(client.tileJsonUrl(TS)).toBe(`${api.baseUrl}/tiles/${TS}.json`);
    const doc = await client.tileJson(TS);
    expect(doc.tiles).toEqual([client.tileUrl(TS)]);
    expect([doc.minzoom, doc.maxzoom]).toEqual([0, 7]);
    const expected = await new PMTiles(createBufferSource(archive)).getZxy(4, 3, 7);
    const blob = await client.tile(TS, 4, 3, 7);
    expect(blob.type).toBe('image/png');
    expect(Buffer.from(await blob.arrayBuffer()).equals(Buffer.from(expected!.data))).toBe(true);
    expect(client.rateLimit()?.limit).toBeGreaterThan(0);
    expect(() => client.tileUrl('latest')).toThrow(RangeError);
    await expect(client.tile(TS, 9, 0, 0)).rejects.toMatchObject({ status: 400 });
  });
});
