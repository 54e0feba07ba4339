/**
 * z/x/y tiles and TileJSON on one embedded replica: the shared conformance suite, plus the
 * public base URL of TileJSON with and without a trusted proxy.
 */
import { auth, KEYS, APPS, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { describeTileConformance, sparseArchive } from '../support/tile-conformance';

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
