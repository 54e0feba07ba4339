/**
 * `GET /status.json`: serves the prepared status document of the current snapshot in the
 * coding the client prefers (brotli, gzip or identity, negotiated here so nginx passes the
 * bytes through instead of compressing every response). O(1) per request: no rendering,
 * hashing, compression or I/O on this path once a version's representation exists.
 */
import type { Middleware } from 'koa';
import type { CatalogReader } from '../../domain/ports';
import type { StatusDocument } from '../../domain/status-document';
import { ServiceUnavailableError } from '../../errors';
import { preferredEncoding } from '../accept-encoding';
import { evaluatePreconditions } from '../conditional';

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

export function statusRoute(deps: StatusRouteDeps): Middleware {
  return (ctx) => {
    const doc = deps.statusDocument();
    if (doc === undefined) throw new ServiceUnavailableError();
    const headers = ctx.req.headers;
    const rep = doc.representation(preferredEncoding(headers['accept-encoding']));
    ctx.vary('Accept-Encoding');
    ctx.set('ETag', rep.etag);
    ctx.set('Cache-Control', 'private, no-cache');
    const outcome = evaluatePreconditions(headers, { etag: rep.etag });
    if (
      outcome === 'not-modified' ||
      (outcome === 'proceed' && anyRepresentationMatches(headers, doc))
    ) {
      ctx.status = 304;
      return;
    }
    ctx.status = 200;
    ctx.set('Content-Type', 'application/json');
    if (rep.encoding !== 'identity') ctx.set('Content-Encoding', rep.encoding);
    ctx.body = rep.body;
  };
}
