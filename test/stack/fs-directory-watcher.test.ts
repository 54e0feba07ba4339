/** Embedded ingest deadline: a completed archive is listed within 2 s of its rename. */
import { startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { buildArchive } from '../fixtures/archives';
import { recentTimestamps } from '../harness/timestamps';

let api: EmbeddedApi;
beforeAll(async () => {
  api = await startEmbeddedApi();
});
afterAll(() => api.stop());

it('lists each new archive within 2 s of the producer renaming it into place', async () => {
  for (const ts of recentTimestamps(3)) {
    await api.publish(ts, buildArchive(ts, 1));
    await api.waitForListed(ts, 2000);
  }
  expect(api.catalogTimestamps()).toHaveLength(3);
});
