/** Embedded ingest deadline: a completed archive is listed within 2 s of its rename. */
import { formatTimestamp } from '../../../../src/domain/timestamps';
import { startEmbeddedApi, type EmbeddedApi } from '../../../harness/embedded-api';
import { buildArchive } from '../../../fixtures/archives';

let api: EmbeddedApi;
beforeAll(async () => {
  api = await startEmbeddedApi();
});
afterAll(() => api.stop());

it('lists each new archive within 2 s of the producer renaming it into place', async () => {
  const base = Math.floor(Date.now() / 120_000) * 120_000;
  for (let i = 0; i < 3; i++) {
    const ts = formatTimestamp(base - i * 120_000);
    await api.publish(ts, buildArchive(ts, 1));
    await api.waitForListed(ts, 2000);
  }
  expect(api.catalogTimestamps()).toHaveLength(3);
});
