/**
 * `GET|HEAD /legend.json`: the colour schemes' legend (`tiles/legend-document.ts`), on the
 * status document's terms (credentials, one rate-limit point, brotli/gzip negotiated here with
 * a strong ETag per coding, 304 on `If-None-Match`, 412 on a failed `If-Match`). It is built
 * once per process: it changes only with a deploy, so clients may keep it for an hour
 * ({@link LEGEND_MAX_AGE_S}) and then revalidate.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { preparedDocument } from '../../domain/status-document';
import { PreconditionFailedError } from '../../errors';
import { buildLegend } from '../../tiles/legend-document';
import type { Answer } from './answer';
import { LEGEND_ROUTE } from './route-table';
import { answerStatus } from './status-answer';

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
  const doc = preparedDocument(Buffer.from(JSON.stringify(buildLegend())));
  const caching = `${cacheControl}, max-age=${LEGEND_MAX_AGE_S}`;
  return (headers) => {
    const { rep, outcome } = answerStatus(headers, doc);
    if (outcome === 'precondition-failed') throw new PreconditionFailedError();
    const common = ['ETag', rep.etag, 'Cache-Control', caching];
    if (outcome === 'not-modified')
      return { status: 304, route: LEGEND_ROUTE, headers: common, vary: 'Accept-Encoding' };
    common.push('Content-Type', 'application/json');
    if (rep.encoding !== 'identity') common.push('Content-Encoding', rep.encoding);
    return {
      status: 200,
      route: LEGEND_ROUTE,
      headers: common,
      vary: 'Accept-Encoding',
      body: rep.body,
      length: rep.body.length,
    };
  };
}
