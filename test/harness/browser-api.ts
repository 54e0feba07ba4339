/**
 * The embedded API with the viewer's assets and demo credentials chosen by the test, plus real
 * radar frames for the browser and client tests. The
 * server itself is the embedded harness (`startEmbeddedApi`), with a configurable rate window
 * so client tests can watch a real 429 window reopen in a second.
 */
import { createSimulatorPool } from '../../src/sim/simulator-frame';
import type { ViewerDemoCredentials } from '../../src/viewer/viewer-routes';
import { startEmbeddedApi, type EmbeddedApi } from './embedded-api';
import { recentTimestamps } from './timestamps';

export interface ViewerApiOptions {
  /** Default per-key limit (the harness's `limited` key keeps its own limit of 3). */
  readonly rateLimit?: number;
  /** Rate-limit window in seconds (default 60). */
  readonly windowS?: number;
  /** Built viewer directory; without it `/viewer/` answers 503. */
  readonly assetsDir?: string;
  /** Credentials the page is pre-filled with (embedded mode's demo). */
  readonly demo?: ViewerDemoCredentials;
}

export interface ViewerApi extends EmbeddedApi {
  /** Waits until every timestamp is listed. */
  waitForAllListed(timestamps: readonly string[], timeoutMs?: number): Promise<void>;
}

export async function startViewerApi(options: ViewerApiOptions = {}): Promise<ViewerApi> {
  const api = await startEmbeddedApi({
    rateLimit: options.rateLimit,
    windowS: options.windowS,
    viewer: { assetsDir: options.assetsDir, demo: options.demo },
  });
  return {
    ...api,
    async waitForAllListed(timestamps, timeoutMs = 5000) {
      for (const timestamp of timestamps) await api.waitForListed(timestamp, timeoutMs);
    },
  };
}

/**
 * Publishes `count` real radar frames rendered by the simulator (PNG tiles of the NWS palette,
 * zooms 0..maxZoom) ending now; resolves with their timestamps, newest first, once listed.
 * Rendering runs in the simulator's worker pool: inside jest's module sandbox the renderer's
 * hot loops run about fifty times slower than in a plain worker thread.
 */
export async function publishRadarFrames(
  api: ViewerApi,
  count: number,
  maxZoom = 6,
): Promise<string[]> {
  const pool = createSimulatorPool({ maxZoom, size: 2 });
  const timestamps = recentTimestamps(count);
  try {
    await Promise.all(
      timestamps.map(async (timestamp) => api.publish(timestamp, await pool.render(timestamp))),
    );
  } finally {
    await pool.close();
  }
  await api.waitForAllListed(timestamps);
  return timestamps;
}
