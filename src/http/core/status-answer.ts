/**
 * `GET /status.json`: the prepared status document of the current snapshot in the coding the
 * client prefers (brotli, gzip or identity, negotiated here so nginx passes the bytes through
 * instead of compressing every response). O(1) per request: no rendering, hashing,
 * compression or I/O once a version's representation exists.
 *
 * Preconditions follow the archive's rules: `If-None-Match` naming any representation of the
 * document answers 304, `If-Match` naming none of them answers 412 (every coding of one
 * document is the same state of the resource, so any of their tags matches).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { StatusDocument } from '../../domain/status-document';
import { PreconditionFailedError, ServiceUnavailableError } from '../../errors';
import { preferredEncoding } from './accept-encoding';
import { evaluatePreconditions } from './conditional';
import type { Answer } from './answer';
import { STATUS_ROUTE } from './route-table';

/** The document changes every publish: clients revalidate with its ETag every time. */
export const STATUS_CACHE_CONTROL = 'private, no-cache';

/** Seconds after which a client asking before anything was published may try again. */
export const NOTHING_PUBLISHED_RETRY_AFTER_S = 10;

/** Whether `evaluatePreconditions` says `outcome` for any representation of `doc`. */
function anyRepresentation(
  headers: IncomingHttpHeaders,
  doc: StatusDocument,
  outcome: 'not-modified' | 'proceed',
): boolean {
  return doc.etags.some((etag) => evaluatePreconditions(headers, { etag }) === outcome);
}

/**
 * The answer for a prepared JSON document (the status document, the legend): the coding the
 * client prefers, 304 / 412 by the rules above, `cacheControl` as given.
 */
export function answerPrepared(
  headers: IncomingHttpHeaders,
  doc: StatusDocument,
  route: string,
  cacheControl: string,
): Answer {
  const accept = headers['accept-encoding'];
  const rep = doc.representation(
    preferredEncoding(typeof accept === 'string' ? accept : undefined),
  );
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined && !anyRepresentation({ 'if-match': ifMatch }, doc, 'proceed'))
    throw new PreconditionFailedError();
  const common = ['ETag', rep.etag, 'Cache-Control', cacheControl];
  // The document has no modification date, so If-None-Match is the only condition left.
  if (headers['if-none-match'] !== undefined) {
    const rest = ifMatch === undefined ? headers : { ...headers, 'if-match': undefined };
    if (anyRepresentation(rest, doc, 'not-modified'))
      return { status: 304, route, headers: common, vary: 'Accept-Encoding' };
  }
  common.push('Content-Type', 'application/json');
  if (rep.encoding !== 'identity') common.push('Content-Encoding', rep.encoding);
  return {
    status: 200,
    route,
    headers: common,
    vary: 'Accept-Encoding',
    body: rep.body,
    length: rep.body.length,
  };
}

/** The status answer for the document `statusDocument()` returns now. */
export function createStatusAnswerer(
  statusDocument: () => StatusDocument | undefined,
): (headers: IncomingHttpHeaders) => Answer {
  return (headers) => {
    const doc = statusDocument();
    if (doc === undefined)
      throw new ServiceUnavailableError({ retryAfterS: NOTHING_PUBLISHED_RETRY_AFTER_S });
    return answerPrepared(headers, doc, STATUS_ROUTE, STATUS_CACHE_CONTROL);
  };
}
