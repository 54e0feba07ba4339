/**
 * The independent `pmtiles` reader (FetchSource with the two auth headers, as MapLibre
 * clients use it) reads the header and tiles of a published archive through the server.
 */
import { FetchSource, PMTiles } from 'pmtiles';
import { auth, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';
import { archiveOf, pyramid } from '../fixtures/archives';

const TS = '202611221400';
// Enough tiles for leaf directories, so the reader follows several range requests.
const tiles = pyramid(7, 64);
const archive = archiveOf(tiles, 7, { timestamp: TS, units: 'dBZ' });
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApiWith(TS, archive);
});
afterAll(() => api.stop());

it('reads header, metadata and tiles byte-identical through the running server', async () => {
  const source = new FetchSource(`${api.baseUrl}/tiles/${TS}.pmtiles`, new Headers(auth()));
  const reader = new PMTiles(source);
  const header = await reader.getHeader();
  expect(header.maxZoom).toBe(7);
  expect(header.numAddressedTiles).toBe(tiles.length);
  expect(header.leafDirectoryLength).toBeGreaterThan(0);
  expect(await reader.getMetadata()).toEqual({ timestamp: TS, units: 'dBZ' });
  const sample = [tiles[0]!, tiles[5]!, tiles[300]!, tiles[5000]!, tiles[tiles.length - 1]!];
  for (const tile of sample) {
    const got = await reader.getZxy(tile.z, tile.x, tile.y);
    expect(got).toBeDefined();
    expect(Buffer.from(got!.data).equals(Buffer.from(tile.data))).toBe(true);
  }
});
