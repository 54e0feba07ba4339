/**
 * `GET|HEAD /legend.json`: the colour schemes' legend (`tiles/legend-document.ts`), on the
 * status document's terms (credentials, one rate-limit point, brotli/gzip negotiated here with
 * a strong ETag per coding, 304 on `If-None-Match`, 412 on a failed `If-Match`). It is built
 * once per process: it changes only with a deploy, so clients may keep it for an hour
 * ({@link LEGEND_MAX_AGE_S}) and then revalidate.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { preparedDocument } from '../../domain/status-document';
import { buildLegend } from '../../tiles/legend-document';
import type { Answer } from './answer';
import { LEGEND_ROUTE } from './route-table';
import { answerPrepared } from './status-answer';
import { jsonBytes } from '../../shared/json-text';

/**
 * Freshness of the legend in caches: an hour, so a deploy that adds a scheme reaches every
 * client within the hour, while a page that reads the legend on every load mostly needs no
 * request at all.
 */
export const LEGEND_MAX_AGE_S = 3600;

/** The legend answerer; `cacheControl` is the operator's private/public choice. */
export function createLegendAnswerer(
  cacheControl: 'private' | 'public',
): (headers: IncomingHttpHeaders) => Answer {
  const doc = preparedDocument(jsonBytes(buildLegend()));
  const caching = `${cacheControl}, max-age=${LEGEND_MAX_AGE_S}`;
  return (headers) => answerPrepared(headers, doc, LEGEND_ROUTE, caching);
}
