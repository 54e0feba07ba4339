/**
 * The preconditions of a page served through Koa (the viewer's files, the API reference),
 * decided by the same evaluator as the API's (`conditional.ts`, RFC 9110 §13.2.2) rather than
 * Koa's `ctx.fresh`, which ignores `If-Match` and `If-Unmodified-Since` and reads any date
 * `Date.parse` accepts (an ISO-8601 `If-Modified-Since` made a 304). So a page answers 412
 * with the error record when `If-Match` or `If-Unmodified-Since` fails, 304 when
 * `If-None-Match` or an HTTP-date `If-Modified-Since` says the client's copy is current, and
 * ignores a date that is not an HTTP-date, exactly as an archive does.
 */
import type { Context } from 'koa';
import { PreconditionFailedError } from '../errors';
import { evaluatePreconditions, type Validators } from './conditional';

/**
 * Applies the request's preconditions to a page whose validators are `current`: throws
 * `PreconditionFailedError` (412), or sets 304 and returns true (send no body), or returns
 * false (send the page).
 */
export function answeredByPreconditions(ctx: Context, current: Validators): boolean {
  const outcome = evaluatePreconditions(ctx.headers, current);
  if (outcome === 'precondition-failed') throw new PreconditionFailedError();
  if (outcome !== 'not-modified') return false;
  ctx.status = 304;
  return true;
}
