/**
 * The one way the publish-to-visible measurements see a frame appear: a replica's
 * `/status.json` read every 20 ms (conditional GET, so an unchanged list costs a 304), and an
 * upload counted visible at the first status that lists its timestamp.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { httpGet } from './processes';
import { AUTH_HEADERS } from './service';

/** Milliseconds between two status reads: fine enough against a 2-5 s polling path. */
export const VISIBILITY_POLL_MS = 20;

/** A running poller of one replica. */
export interface VisibilityPoller {
  /** Ends the polling after the read in flight; resolves once it has ended. */
  stop(): Promise<void>;
}

/**
 * Polls `${replicaUrl}/status.json` until stopped. `uploadedAt` maps each uploaded timestamp
 * to the `performance.now()` of its upload's completion (the caller adds entries as it
 * uploads); `onVisible` is called once per timestamp, at the first status listing it, with
 * the milliseconds since that upload. Failed reads are retried at the next tick.
 */
export function pollVisibility(
  replicaUrl: string,
  uploadedAt: ReadonlyMap<string, number>,
  onVisible: (timestamp: string, afterMs: number) => void,
): VisibilityPoller {
  const seen = new Set<string>();
  let polling = true;
  const loop = (async () => {
    let etag = '';
    while (polling) {
      const res = await httpGet(`${replicaUrl}/status.json`, {
        ...AUTH_HEADERS,
        ...(etag ? { 'if-none-match': etag } : {}),
      }).catch(() => undefined);
      const now = performance.now();
      if (res?.status === 200) {
        etag = String(res.headers.etag ?? '');
        const listed = new Set(
          (JSON.parse(res.body.toString()) as { timestamps: string[] }).timestamps,
        );
        for (const [timestamp, at] of uploadedAt) {
          if (!seen.has(timestamp) && listed.has(timestamp)) {
            seen.add(timestamp);
            onVisible(timestamp, now - at);
          }
        }
      }
      await sleep(VISIBILITY_POLL_MS);
    }
  })();
  return {
    stop: async () => {
      polling = false;
      await loop;
    },
  };
}
