/**
 * `GET /status.json`: serves the pre-rendered status document of the current snapshot.
 * O(1) per request: no rendering, hashing or I/O on this path.
 */
import type { Middleware } from 'koa';
import type { CatalogReader } from '../../domain/ports';
import type { StatusDocument } from '../../domain/status-document';
import { ServiceUnavailableError } from '../../errors';
import { evaluatePreconditions } from '../conditional';

export interface StatusRouteDeps {
  readonly catalog: CatalogReader;
  /** Current document (memoised by snapshot and health); `undefined` before any publish. */
  readonly statusDocument: () => StatusDocument | undefined;
}

export function statusRoute(deps: StatusRouteDeps): Middleware {
  return (ctx) => {
    const doc = deps.statusDocument();
    if (doc === undefined) throw new ServiceUnavailableError();
    ctx.set('ETag', doc.etag);
    ctx.set('Cache-Control', 'private, no-cache');
    const outcome = evaluatePreconditions(ctx.req.headers, { etag: doc.etag });
    if (outcome === 'not-modified') {
      ctx.status = 304;
      return;
    }
    ctx.status = 200;
    ctx.set('Content-Type', 'application/json');
    ctx.body = doc.body;
  };
}
