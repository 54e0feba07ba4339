/**
 * A replica's catalog as clients see it: the catalog it reads (memory or Redis snapshot) minus
 * every timestamp past retention. Retention counts from the timestamp's own value, which every
 * replica knows, so a replica drops an expired timestamp on its own, at the moment it expires,
 * whatever ingest is doing (ingest prunes the shared index on its next pass, which an outage
 * can delay by a whole pass or more). The filtered snapshot is rebuilt when the source changes
 * and, on a timer, when its oldest timestamp expires: never per request, so a request still
 * costs one comparison and the pre-rendered status document is re-rendered once per change.
 * `find` (a snapshot that lags its index) is passed through for retained timestamps only.
 */
import { createSnapshot, EMPTY_SNAPSHOT } from '../domain/catalog-snapshot';
import type { CatalogReader, CatalogSnapshot } from '../domain/ports';
import { parseTimestamp } from '../domain/timestamps';

export interface RetainedCatalogOptions {
  /** `RADAR_RETENTION_S`: a timestamp older than this (by its value) is not listed. */
  readonly retentionS: number;
  readonly now?: () => number;
}

/** The retained view; `stop()` clears its expiry timer. */
export interface RetainedCatalog extends CatalogReader {
  stop(): void;
}

/** Longest single timer (setTimeout's limit is 2^31 - 1 ms); longer waits re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function createRetainedCatalog(
  source: CatalogReader,
  options: RetainedCatalogOptions,
): RetainedCatalog {
  const now = options.now ?? Date.now;
  const retentionMs = options.retentionS * 1000;
  const listeners = new Set<(snapshot: CatalogSnapshot) => void>();
  let seen: CatalogSnapshot | undefined;
  let view: CatalogSnapshot = EMPTY_SNAPSHOT;
  let version = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  /** Rebuilds the view if the source moved or a timestamp expired; true when it changed. */
  const refresh = (): boolean => {
    const snapshot = source.current();
    const cutoffMs = now() - retentionMs;
    // Newest first, so the retained ones are a prefix: stop at the first expired one.
    let kept = 0;
    for (const ts of snapshot.timestamps) {
      if ((parseTimestamp(ts) ?? -Infinity) < cutoffMs) break;
      kept += 1;
    }
    const changed = snapshot !== seen || kept !== view.timestamps.length;
    if (changed) {
      seen = snapshot;
      const metas = snapshot.timestamps.slice(0, kept).map((ts) => snapshot.get(ts)!);
      view = createSnapshot(++version, metas);
    }
    schedule();
    return changed;
  };

  /** Arms the timer for the moment the oldest listed timestamp expires. */
  const schedule = () => {
    clearTimeout(timer);
    timer = undefined;
    const oldest = view.timestamps[view.timestamps.length - 1];
    const oldestMs = oldest === undefined ? undefined : parseTimestamp(oldest);
    if (stopped || oldestMs === undefined) return;
    // Expired once strictly older than the cutoff, as ingest's prune counts it.
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, oldestMs + retentionMs + 1 - now()));
    timer = setTimeout(onTimer, delay);
    timer.unref();
  };

  const notify = () => {
    for (const listener of listeners) listener(view);
  };
  const onTimer = () => {
    if (refresh()) notify();
  };
  const unsubscribe = source.subscribe(() => {
    if (refresh()) notify();
  });
  refresh();
  const find = source.find?.bind(source);

  return {
    // A timestamp past retention is never asked about: it is not listed, and never will be.
    ...(find === undefined
      ? {}
      : {
          find: (timestamp: string) =>
            (parseTimestamp(timestamp) ?? -Infinity) < now() - retentionMs
              ? Promise.resolve(undefined)
              : find(timestamp),
        }),
    current() {
      // A source that moved without telling (or before its listeners ran) is caught here.
      if (source.current() !== seen && refresh()) notify();
      return view;
    },
    inSync: () => source.inSync(),
    syncAgeS: () => source.syncAgeS(),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      unsubscribe();
    },
  };
}
