/**
 * The `/status.json` document as prepared bytes: the JSON, its strong ETag, and its gzip and
 * brotli encodings are computed once per (catalog version, health flag), never per request.
 * The encodings are made on first demand (an idle replica never compresses) and kept with the
 * document. Each encoding is a separate representation with its own strong ETag (RFC 9110
 * 8.8.3: the same tag for different bytes would be wrong); all three share one base, so any
 * of them revalidates the document.
 */
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { CatalogReader, CatalogSnapshot } from './ports';
import {
  EMPTY_FORECAST_VIEW,
  type ForecastCatalogReader,
  type ForecastView,
} from './forecast-catalog';
import { jsonBytes } from '../shared/json-text';

/** A content coding the document is prepared in. */
export type StatusEncoding = 'identity' | 'gzip' | 'br';

/** One prepared representation: the bytes as sent and their strong ETag. */
export interface StatusRepresentation {
  readonly encoding: StatusEncoding;
  readonly body: Buffer;
  readonly etag: string;
}

/** A rendered status document with its strong ETag and lazily prepared encodings. */
export interface StatusDocument {
  /** The JSON bytes (identity). */
  readonly body: Buffer;
  readonly etag: string;
  /** Every ETag any representation of this document carries (for If-None-Match). */
  readonly etags: readonly string[];
  /** The representation in `encoding`, compressed on first use and kept. */
  representation(encoding: StatusEncoding): StatusRepresentation;
}

/**
 * gzip level 6 and brotli quality 5: measured on a 10,000-timestamp document (150 KB), both
 * take under 10 ms once per version; brotli is 6 KB against gzip's 23 KB, so it pays.
 * Higher brotli qualities cost 50-800 ms for under 10 % more.
 */
const COMPRESS: Record<Exclude<StatusEncoding, 'identity'>, (body: Buffer) => Buffer> = {
  gzip: (body) => gzipSync(body, { level: 6 }),
  br: (body) =>
    brotliCompressSync(body, {
      params: {
        [zlib.BROTLI_PARAM_QUALITY]: 5,
        [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
        [zlib.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
};

/**
 * Renders exactly the four public fields; `undefined` when nothing is published yet.
 * `healthy`, `latest` and `timestamps` are the observed frames' alone; `forecasts` lists the
 * listed forecast base's frames in lead order (`[]` when none is listed).
 */
export function renderStatus(
  snapshot: CatalogSnapshot,
  healthy: boolean,
  forecasts: ForecastView = EMPTY_FORECAST_VIEW,
): StatusDocument | undefined {
  const latest = snapshot.timestamps[0];
  if (latest === undefined) return undefined;
  return preparedDocument(
    jsonBytes({ healthy, latest, timestamps: snapshot.timestamps, forecasts: forecasts.listed }),
  );
}

/**
 * Any JSON `body` as a prepared document: its strong ETag (a hash of the bytes, so equal on
 * every replica) and its encodings made on first demand. The status document and the legend
 * are both served this way.
 */
export function preparedDocument(body: Buffer): StatusDocument {
  const base = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  const etag = `"${base}"`;
  const identity: StatusRepresentation = { encoding: 'identity', body, etag };
  const prepared = new Map<StatusEncoding, StatusRepresentation>([['identity', identity]]);
  return {
    body,
    etag,
    etags: [etag, `"${base}-gzip"`, `"${base}-br"`],
    representation(encoding) {
      let rep = prepared.get(encoding);
      if (rep === undefined) {
        const coding = encoding as Exclude<StatusEncoding, 'identity'>;
        rep = { encoding, body: COMPRESS[coding](body), etag: `"${base}-${encoding}"` };
        prepared.set(encoding, rep);
      }
      return rep;
    },
  };
}

/**
 * Memoises `renderStatus` on (snapshot, forecast view, healthy): the flag can flip without a
 * catalog change (staleness, store probe), so every input keys the cache.
 */
export function createStatusRenderer(): (
  snapshot: CatalogSnapshot,
  healthy: boolean,
  forecasts?: ForecastView,
) => StatusDocument | undefined {
  let lastSnapshot: CatalogSnapshot | undefined;
  let lastHealthy = false;
  let lastForecasts: ForecastView | undefined;
  let lastDoc: StatusDocument | undefined;
  return (snapshot, healthy, forecasts = EMPTY_FORECAST_VIEW) => {
    if (snapshot !== lastSnapshot || healthy !== lastHealthy || forecasts !== lastForecasts) {
      lastDoc = renderStatus(snapshot, healthy, forecasts);
      lastSnapshot = snapshot;
      lastHealthy = healthy;
      lastForecasts = forecasts;
    }
    return lastDoc;
  };
}

/** Inputs of the live status document: what is published and the health flag. */
export interface StatusSourceDeps {
  readonly catalog: CatalogReader;
  /** The forecast frames; without it `forecasts` is always `[]`. */
  readonly forecasts?: ForecastCatalogReader;
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
  return () =>
    render(
      deps.catalog.current(),
      deps.healthy(),
      deps.forecasts?.current() ?? EMPTY_FORECAST_VIEW,
    );
}
