/**
 * `GET|HEAD /openapi.json`: the API description, to anyone (no credentials, no rate-limit
 * point), so code generators, API consoles and contract tests can read it before they hold a
 * key. Revalidated with its strong ETag on every use (`no-cache`): a new release changes it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { PreconditionFailedError, ServiceUnavailableError } from '../../errors';
import type { OpenApiDocument } from '../../openapi/openapi-document';
import { evaluatePreconditions } from './conditional';
import type { Answer } from './answer';
import { OPENAPI_ROUTE } from './route-table';

export const OPENAPI_CACHE_CONTROL = 'no-cache';
/** Seconds after which a client may look again when the description was never built. */
export const OPENAPI_UNBUILT_RETRY_AFTER_S = 60;

/** The answerer for the document loaded at start (undefined: never built, 503). */
export function createOpenApiAnswerer(
  document: OpenApiDocument | undefined,
): (headers: IncomingHttpHeaders) => Answer {
  return (headers) => {
    if (document === undefined)
      throw new ServiceUnavailableError({ retryAfterS: OPENAPI_UNBUILT_RETRY_AFTER_S });
    const precondition = evaluatePreconditions(headers, { etag: document.etag });
    if (precondition === 'precondition-failed') throw new PreconditionFailedError();
    const common = ['ETag', document.etag, 'Cache-Control', OPENAPI_CACHE_CONTROL];
    if (precondition === 'not-modified')
      return { status: 304, route: OPENAPI_ROUTE, headers: common };
    common.push('Content-Type', 'application/json');
    return {
      status: 200,
      route: OPENAPI_ROUTE,
      headers: common,
      body: document.body,
      length: document.body.length,
    };
  };
}
