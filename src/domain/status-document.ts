/**
 * The `/status.json` document, pre-rendered: bytes and strong ETag are computed only when the
 * catalog snapshot or the health flag changes, never per request.
 */
import { createHash } from 'node:crypto';
import type { CatalogReader, CatalogSnapshot } from './ports';

/** A rendered status body with its strong ETag. */
export interface StatusDocument {
  readonly body: Buffer;
  readonly etag: string;
}

/** Renders exactly the three SPEC fields; `undefined` when nothing is published yet. */
export function renderStatus(
  snapshot: CatalogSnapshot,
  healthy: boolean,
): StatusDocument | undefined {
  const latest = snapshot.timestamps[0];
  if (latest === undefined) return undefined;
  const body = Buffer.from(JSON.stringify({ healthy, latest, timestamps: snapshot.timestamps }));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, etag };
}

/**
 * Memoises `renderStatus` on (snapshot version, healthy): the flag can flip without a catalog
 * change (staleness, store probe), so both inputs key the cache.
 */
export function createStatusRenderer(): (
  snapshot: CatalogSnapshot,
  healthy: boolean,
) => StatusDocument | undefined {
  let lastSnapshot: CatalogSnapshot | undefined;
  let lastHealthy = false;
  let lastDoc: StatusDocument | undefined;
  return (snapshot, healthy) => {
    if (snapshot !== lastSnapshot || healthy !== lastHealthy) {
      lastDoc = renderStatus(snapshot, healthy);
      lastSnapshot = snapshot;
      lastHealthy = healthy;
    }
    return lastDoc;
  };
}

/** Inputs of the live status document: what is published and the health flag. */
export interface StatusSourceDeps {
  readonly catalog: CatalogReader;
  readonly healthy: () => boolean;
}

/**
 * The document to serve right now: memoised render of the current snapshot and health, so a
 * request costs a few comparisons, not a render.
 */
export function createStatusDocumentSource(
  deps: StatusSourceDeps,
): () => StatusDocument | undefined {
  const render = createStatusRenderer();
  return () => render(deps.catalog.current(), deps.healthy());
}
