/**
 * Archive readers from `client.openArchive()`: real range requests to the running service,
 * both credentials on every one of them, byte-identical tiles, and errors mapped to statuses.
 */
import { EtagMismatch } from 'pmtiles';
import { createArchiveSource, archivePath } from '../../../src/client/archive-source';
import { RadarApiError } from '../../../src/client/errors';
import { createRadarClient } from '../../../src/client/radar-client';
import { createRadarTransport } from '../../../src/client/transport';
import { archiveOf, pyramid, tileBytes } from '../../fixtures/archives';
import { APPS, KEYS, startEmbeddedApiWith, type EmbeddedApi } from '../../harness/embedded-api';
import { recordingFetch } from '../../harness/recording-fetch';

const TS = '202611221400';
// Zooms 0..7 with small tiles: enough entries for leaf directories, so several ranges are read.
const tiles = pyramid(7, 64);
const metadata = { timestamp: TS, attribution: 'Test radar' };
const archive = archiveOf(tiles, 7, metadata);
const credentials = { apiKey: KEYS.good, appId: APPS.web };
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApiWith(TS, archive);
});
afterAll(() => api.stop());

it('reads the header and tiles byte-identical, sending both credentials on every range request', async () => {
  const recorder = recordingFetch();
  const client = createRadarClient({ baseUrl: api.baseUrl, credentials, fetch: recorder.fetch });
  const reader = client.openArchive(TS);
  expect(reader.source.getKey()).toBe(`${api.baseUrl}/tiles/${TS}.pmtiles`);
  expect(client.archiveUrl(TS)).toBe(reader.source.getKey());
  const header = await reader.getHeader();
  expect(header.maxZoom).toBe(7);
  expect(header.leafDirectoryLength).toBeGreaterThan(0);
  for (const [z, x, y] of [
    [0, 0, 0],
    [3, 2, 5],
    [7, 127, 127],
    [6, 17, 40],
  ] as const) {
    const tile = await reader.getZxy(z, x, y);
    expect(Buffer.from(tile!.data).equals(tileBytes(z, x, y, 64))).toBe(true);
  }
  // The header read, then leaf directories and tiles past its first 16 KiB (tiles inside it
  // come from that read: see the next test).
  expect(recorder.requests.length).toBeGreaterThanOrEqual(3);
  for (const request of recorder.requests) {
    expect(request.headers.authorization).toBe(`Bearer ${KEYS.good}`);
    expect(request.headers['x-app']).toBe(`Bearer ${APPS.web}`);
    expect(request.headers.range).toMatch(/^bytes=\d+-\d+$/);
    expect(request.status).toBe(206);
  }
  // Every counted response updates the quota the client exposes.
  expect(client.rateLimit()).toMatchObject({ limit: 1000, remaining: expect.any(Number) });
});

it('returns exactly the requested bytes with the strong ETag and caching headers', async () => {
  const source = createArchiveSource(
    createRadarTransport({ baseUrl: api.baseUrl, credentials }),
    TS,
  );
  const got = await source.getBytes(100, 50);
  expect(Buffer.from(got.data).equals(archive.subarray(100, 150))).toBe(true);
  expect(got.etag).toMatch(/^"[0-9a-f]+"$/);
  expect(got.cacheControl).toBe('private, max-age=31536000, immutable');
});

it('reads inside the first 16 KiB (the metadata pmtiles fetches for attribution) from memory, not with another request', async () => {
  const recorder = recordingFetch();
  const client = createRadarClient({ baseUrl: api.baseUrl, credentials, fetch: recorder.fetch });
  const reader = client.openArchive(TS);
  const header = await reader.getHeader();
  const afterHeader = recorder.requests.length;
  expect(afterHeader).toBe(1);
  expect(header.jsonMetadataOffset + header.jsonMetadataLength).toBeLessThanOrEqual(16_384);
  expect(await reader.getMetadata()).toEqual(metadata);
  expect(recorder.requests.length).toBe(afterHeader);
  // A range past the first read still goes to the service, byte-identical.
  const far = archive.length - 40;
  const got = await reader.source.getBytes(far, 40, undefined, header.etag);
  expect(Buffer.from(got.data).equals(archive.subarray(far))).toBe(true);
  expect(recorder.requests.length).toBe(afterHeader + 1);
});

it('a changed ETag raises pmtiles EtagMismatch, so pmtiles reloads the header', async () => {
  const source = createArchiveSource(
    createRadarTransport({ baseUrl: api.baseUrl, credentials }),
    TS,
  );
  await expect(source.getBytes(0, 10, undefined, '"not-the-etag"')).rejects.toBeInstanceOf(
    EtagMismatch,
  );
});

it('an unpublished timestamp is a 404 RadarApiError; a malformed one is refused before any request', async () => {
  const source = createArchiveSource(
    createRadarTransport({ baseUrl: api.baseUrl, credentials }),
    '202001010000',
  );
  await expect(source.getBytes(0, 10)).rejects.toMatchObject({
    status: 404,
    serviceMessage: 'Not Found',
  });
  await expect(source.getBytes(0, 10)).rejects.toBeInstanceOf(RadarApiError);
  expect(() => archivePath('2026')).toThrow(RangeError);
});

it('wrong credentials surface as 401 from the reader', async () => {
  const client = createRadarClient({
    baseUrl: api.baseUrl,
    credentials: { apiKey: 'rk_wrong-0123456789', appId: APPS.web },
  });
  await expect(client.openArchive(TS).getHeader()).rejects.toMatchObject({ status: 401 });
});
