/** Polling `/status.json` against the running service: new frames arrive, bad credentials stop it. */
import { RadarApiError } from '../../../src/client/errors';
import { createRadarClient } from '../../../src/client/radar-client';
import type { RadarStatus } from '../../../src/client/status';
import { watchStatus } from '../../../src/client/status-watcher';
import { buildArchive } from '../../fixtures/archives';
import { APPS, KEYS, startEmbeddedApiWith, type EmbeddedApi } from '../../harness/embedded-api';
import { recordingFetch } from '../../harness/recording-fetch';
import { waitFor } from '../../harness/wait';

const A = '202611221358';
const B = '202611221400';
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApiWith(A, buildArchive(A, 1));
});
afterAll(() => api.stop());

it('reports the status at once and picks up newly published frames', async () => {
  const client = createRadarClient({
    baseUrl: api.baseUrl,
    credentials: { apiKey: KEYS.good, appId: APPS.web },
  });
  const seen: RadarStatus[] = [];
  const watch = watchStatus(client, { intervalMs: 50, onStatus: (s) => seen.push(s) });
  try {
    await waitFor(() => seen.length >= 1, 5000, 'status watcher');
    expect(seen[0]!.timestamps).toEqual([A]);
    await api.publish(B, buildArchive(B, 1));
    await waitFor(() => seen.at(-1)!.latest === B, 5000, 'status watcher');
    expect(seen.at(-1)!.timestamps).toEqual([B, A]);
  } finally {
    watch.stop();
  }
});

it('stops polling after 401, since the same credentials cannot succeed', async () => {
  const recorder = recordingFetch();
  const client = createRadarClient({
    baseUrl: api.baseUrl,
    credentials: { apiKey: 'rk_wrong-0123456789', appId: APPS.web },
    fetch: recorder.fetch,
  });
  const errors: unknown[] = [];
  const watch = watchStatus(client, {
    intervalMs: 20,
    onStatus: () => undefined,
    onError: (e) => errors.push(e),
  });
  await waitFor(() => errors.length === 1, 5000, 'status watcher');
  await new Promise((r) => setTimeout(r, 200));
  watch.stop();
  expect(errors[0]).toBeInstanceOf(RadarApiError);
  expect(recorder.requests).toHaveLength(1);
});

it('refresh() polls at once and stop() ends the polling', async () => {
  const recorder = recordingFetch();
  const client = createRadarClient({
    baseUrl: api.baseUrl,
    credentials: { apiKey: KEYS.good, appId: APPS.web },
    fetch: recorder.fetch,
  });
  let delivered = 0;
  const watch = watchStatus(client, { intervalMs: 60_000, onStatus: () => delivered++ });
  // Wait for the first poll to finish (its document delivered), not just its response head: a
  // refresh() while a poll is still in flight joins that poll instead of sending another.
  await waitFor(() => delivered === 1, 5000, 'status watcher');
  await watch.refresh();
  expect(recorder.requests).toHaveLength(2);
  watch.stop();
  await new Promise((r) => setTimeout(r, 100));
  expect(recorder.requests).toHaveLength(2);
});
