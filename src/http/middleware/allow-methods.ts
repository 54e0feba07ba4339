/**
 * Method gate for the read-only resources: GET, HEAD and OPTIONS only. A plain OPTIONS (not a
 * CORS preflight, which the CORS middleware already answered) gets 204 with `Allow`.
 */
import type { Context } from 'koa';
import { MethodNotAllowedError } from '../../errors';

export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

/** `true` when the request was answered here (plain OPTIONS); throws 405 for other methods. */
export function answerMethod(ctx: Context): boolean {
  const method = ctx.method;
  if (method === 'GET' || method === 'HEAD') return false;
  if (method === 'OPTIONS') {
    ctx.set('Allow', ALLOWED_METHODS);
    ctx.status = 204;
    return true;
  }
  throw new MethodNotAllowedError(ALLOWED_METHODS);
}
