/**
 * `GET /status.json`: serves the prepared status document of the current snapshot in the
 * coding the client prefers (brotli, gzip or identity, negotiated here so nginx passes the
 * bytes through instead of compressing every response). O(1) per request: no rendering,
 * hashing, compression or I/O on this path once a version's representation exists.
 */
import type { Middleware } from 'koa';
import type { CatalogReader } from '../../domain/ports';
import type { StatusDocument, StatusRepresentation } from '../../domain/status-document';
import { ServiceUnavailableError } from '../../errors';
import { preferredEncoding } from '../accept-encoding';
import { evaluatePreconditions } from '../conditional';

/** The document changes every publish: clients revalidate with its ETag every time. */
export const STATUS_CACHE_CONTROL = 'private, no-cache';

export interface StatusRouteDeps {
  readonly catalog: CatalogReader;
  /** Current document (memoised by snapshot and health); `undefined` before any publish. */
  readonly statusDocument: () => StatusDocument | undefined;
}

/** Whether If-None-Match names any representation of this document (each revalidates it). */
function anyRepresentationMatches(
  headers: Record<string, string | string[] | undefined>,
  doc: StatusDocument,
): boolean {
  if (headers['if-none-match'] === undefined) return false;
  return doc.etags.some((etag) => evaluatePreconditions(headers, { etag }) === 'not-modified');
}

/** What a status request gets: the negotiated representation, and whether it is a 304. */
export interface StatusAnswer {
  readonly rep: StatusRepresentation;
  readonly notModified: boolean;
}

/** Negotiation and revalidation of the document; shared by the Koa route and the fast path. */
export function answerStatus(
  headers: Record<string, string | string[] | undefined>,
  doc: StatusDocument,
): StatusAnswer {
  const accept = headers['accept-encoding'];
  const rep = doc.representation(
    preferredEncoding(typeof accept === 'string' ? accept : undefined),
  );
  const outcome = evaluatePreconditions(headers, { etag: rep.etag });
  const notModified =
    outcome === 'not-modified' || (outcome === 'proceed' && anyRepresentationMatches(headers, doc));
  return { rep, notModified };
}

export function statusRoute(deps: StatusRouteDeps): Middleware {
  return (ctx) => {
    const doc = deps.statusDocument();
    if (doc === undefined) throw new ServiceUnavailableError();
    const { rep, notModified } = answerStatus(ctx.req.headers, doc);
    ctx.vary('Accept-Encoding');
    ctx.set('ETag', rep.etag);
    ctx.set('Cache-Control', STATUS_CACHE_CONTROL);
    if (notModified) {
      ctx.status = 304;
      return;
    }
    ctx.status = 200;
    ctx.set('Content-Type', 'application/json');
    if (rep.encoding !== 'identity') ctx.set('Content-Encoding', rep.encoding);
    ctx.body = rep.body;
  };
}
