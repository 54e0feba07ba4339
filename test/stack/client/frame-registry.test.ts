/**
 * Frames in the pmtiles `Protocol`: registration, release of expired frames, and the guarded
 * handler MapLibre calls, serving TileJSON and tiles from the running service.
 */
import { Protocol } from 'pmtiles';
import {
  createFrameRegistry,
  guardedProtocolHandler,
  protocolKey,
} from '../../../src/client/frame-registry';
import { createRadarClient } from '../../../src/client/radar-client';
import { buildArchive, tileBytes } from '../../fixtures/archives';
import { APPS, KEYS, startEmbeddedApi, type EmbeddedApi } from '../../harness/embedded-api';

const A = '202611221358';
const B = '202611221400';
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApi();
  for (const ts of [A, B]) {
    await api.publish(ts, buildArchive(ts, 3));
    await api.waitForListed(ts);
  }
});
afterAll(() => api.stop());

const setup = () => {
  const client = createRadarClient({
    baseUrl: api.baseUrl,
    credentials: { apiKey: KEYS.good, appId: APPS.web },
  });
  const protocol = new Protocol();
  return { client, protocol, registry: createFrameRegistry(client, protocol) };
};

it('registers one authenticated reader per frame under its archive URL', () => {
  const { client, protocol, registry } = setup();
  const url = registry.register(A);
  expect(url).toBe(`pmtiles://${client.archiveUrl(A)}`);
  expect(registry.register(A)).toBe(url);
  expect(protocol.tiles.size).toBe(1);
  expect(protocol.get(client.archiveUrl(A))).toBeDefined();
});

it('releases frames that left the status list, and only those', () => {
  const { protocol, registry } = setup();
  registry.register(A);
  registry.register(B);
  expect(registry.retain([B])).toEqual([A]);
  expect(registry.registered()).toEqual([B]);
  expect(protocol.tiles.size).toBe(1);
  expect(registry.has(A)).toBe(false);
  registry.release(B);
  expect(protocol.tiles.size).toBe(0);
});

it('the guarded handler serves TileJSON and tiles of registered frames through the service', async () => {
  const { protocol, registry } = setup();
  const handler = guardedProtocolHandler(protocol);
  const url = registry.register(B);
  const tileJson = await handler({ url, type: 'json' }, new AbortController());
  expect(tileJson.data).toEqual({
    tiles: [`${url}/{z}/{x}/{y}`],
    minzoom: 0,
    maxzoom: 3,
    bounds: [-125, 24, -66, 50],
  });
  const tile = await handler({ url: `${url}/2/1/3`, type: 'arrayBuffer' }, new AbortController());
  expect(Buffer.from(tile.data as Uint8Array).equals(tileBytes(2, 1, 3))).toBe(true);
});

it('the guarded handler refuses released or foreign URLs instead of reading them without credentials', async () => {
  const { protocol, registry } = setup();
  const handler = guardedProtocolHandler(protocol);
  const url = registry.register(A);
  registry.release(A);
  await expect(handler({ url, type: 'json' }, new AbortController())).rejects.toThrow(
    /not registered/,
  );
  await expect(handler({ url: `${url}/0/0/0` }, new AbortController())).rejects.toThrow(
    /not registered/,
  );
  expect(protocol.tiles.size).toBe(0); // pmtiles did not create an unauthenticated reader
});

it('protocolKey extracts the archive URL from TileJSON and tile URLs', () => {
  expect(protocolKey('pmtiles://http://h:1/tiles/202611221400.pmtiles')).toBe(
    'http://h:1/tiles/202611221400.pmtiles',
  );
  expect(protocolKey('pmtiles://http://h:1/tiles/202611221400.pmtiles/4/3/5')).toBe(
    'http://h:1/tiles/202611221400.pmtiles',
  );
  // With `metadata: true` the protocol's TileJSON names tiles with the type's extension.
  expect(protocolKey('pmtiles://http://h:1/tiles/202611221400.pmtiles/4/3/5.png')).toBe(
    'http://h:1/tiles/202611221400.pmtiles',
  );
  expect(protocolKey('https://example.com/x')).toBeUndefined();
});
