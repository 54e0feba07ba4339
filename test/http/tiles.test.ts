/**
 * z/x/y tiles and TileJSON on one embedded replica: the shared conformance suite, plus the
 * public base URL of TileJSON with and without a trusted proxy.
 */
import { PMTiles } from 'pmtiles';
import { createRadarClient } from '../../src/client';
import { createBufferSource } from '../fixtures/buffer-source';
import { auth, KEYS, APPS, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { describeTileConformance, sparseArchive } from '../harness/tile-conformance';

const TS = '202611221400';
const archive = sparseArchive(TS);
let api: EmbeddedApi;
let proxied: EmbeddedApi;

beforeAll(async () => {
  [api, proxied] = await Promise.all([startEmbeddedApi(), startEmbeddedApi({ trustProxy: true })]);
  for (const server of [api, proxied]) {
    await server.publish(TS, archive);
    await server.waitForListed(TS);
  }
});
afterAll(async () => {
  await api.stop();
  await proxied.stop();
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

describe('TileJSON public base URL', () => {
  const template = async (server: EmbeddedApi, headers: Record<string, string>) => {
    const res = await request(server.baseUrl, `/tiles/${TS}.json`, {
      headers: { ...auth(), ...headers },
    });
    return {
      status: res.status,
      tiles: res.status === 200 ? res.json<{ tiles: string[] }>().tiles : [],
    };
  };

  it('ignores X-Forwarded-* unless the proxy is trusted', async () => {
    const res = await template(api, {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'radar.example.com',
    });
    expect(res.tiles).toEqual([`${api.baseUrl}/tiles/${TS}/{z}/{x}/{y}.png`]);
  });

  it('uses X-Forwarded-Proto and X-Forwarded-Host behind a trusted proxy', async () => {
    const res = await template(proxied, {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'Radar.Example.com:8443',
    });
    expect(res.tiles).toEqual([`https://radar.example.com:8443/tiles/${TS}/{z}/{x}/{y}.png`]);
  });

  it.each([
    ['a host with a path', { 'X-Forwarded-Host': 'evil.example/x' }],
    ['a host with markup', { 'X-Forwarded-Host': 'a"><script>' }],
    ['an unknown scheme', { 'X-Forwarded-Proto': 'javascript' }],
  ])('400 for %s', async (_label, headers) => {
    expect((await template(proxied, headers)).status).toBe(400);
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
