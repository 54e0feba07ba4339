/**
 * A published archive whose leaf directory is corrupt (ingest checks the header, root and
 * metadata; a leaf is first read when a tile under it is asked for): a tile under that leaf
 * answers 503 with `Retry-After` and the error record, never 500; the finding is counted by
 * reason and the archive is reported for re-validation, which unpublishes it (404 from then
 * on). Tiles under intact leaves are served until then. One embedded replica with its
 * in-process ingest, over a real socket.
 */
import { parseTimestamp } from '../../src/domain/timestamps';
import { leafArchive, withCorruptFirstLeaf } from '../fixtures/corrupt-archives';
import { auth, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { loggedLines } from '../harness/log-lines';
import { waitFor } from '../harness/wait';

const TS = '202611221400';
const { lines, logger } = loggedLines();
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApi({ logger });
  expect(parseTimestamp(TS)).toBeDefined();
  await api.publish(TS, withCorruptFirstLeaf(leafArchive(TS)));
  await api.waitForListed(TS);
});
afterAll(() => api.stop());

/** The value of a sample on the replica's admin port. */
async function metric(name: string, labels: string): Promise<number> {
  const res = await request(`http://127.0.0.1:${api.replica.adminPort}`, '/metrics');
  const line = res.body
    .toString()
    .split('\n')
    .find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? Number.NaN : Number(line.split(' ').pop());
}

it('a corrupt leaf: 503 with Retry-After and the record, counted, reported, then unpublished', async () => {
  // A zoom-7 tile lies under an intact leaf: served.
  const intact = await request(api.baseUrl, `/tiles/${TS}/7/10/20.png`, { headers: auth() });
  expect(intact.status).toBe(200);

  // Tile 0/0/0 lies under the corrupt first leaf.
  const corrupt = await request(api.baseUrl, `/tiles/${TS}/0/0/0.png`, { headers: auth() });
  expect(corrupt.status).toBe(503);
  expect(corrupt.headers['retry-after']).toBe('10');
  expect(corrupt.headers['content-type']).toMatch(/^application\/json/);
  expect(corrupt.json()).toEqual({ error: { code: 503, message: 'Service Unavailable' } });
  expect(corrupt.headers['x-ratelimit-limit']).toBeDefined();

  expect(await metric('radar_archive_format_errors_total', 'reason="leaf-directory"')).toBe(1);
  expect(lines).toContainEqual(
    expect.objectContaining({
      msg: 'published archive is corrupt; reported for re-validation',
      timestamp: TS,
      reason: 'leaf-directory',
    }),
  );

  // The in-process ingest re-validates it at its next pass and withdraws it.
  await waitFor(
    async () =>
      (await request(api.baseUrl, `/tiles/${TS}.pmtiles`, { method: 'HEAD', headers: auth() }))
        .status === 404,
    5000,
    'corrupt archive unpublished',
  );
  expect((await request(api.baseUrl, `/tiles/${TS}/0/0/0.png`, { headers: auth() })).status).toBe(
    404,
  );
  expect(await metric('radar_ingest_unpublished_total', 'reason="failed-revalidation"')).toBe(1);
  expect(await metric('radar_ingest_rejected_total', 'reason="bad-leaf-directory"')).toBe(1);
  // And it stays withdrawn over later passes.
  await new Promise((r) => setTimeout(r, 500));
  expect(api.catalogTimestamps()).toEqual([]);
});
