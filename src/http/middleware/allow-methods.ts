/**
 * Method gate for the read-only resources: GET, HEAD and OPTIONS only. A plain OPTIONS (not a
 * CORS preflight, which the CORS middleware already answered) gets 204 with `Allow`.
 */
import type { Middleware } from 'koa';
import { MethodNotAllowedError } from '../../errors';

export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

export function allowMethods(): Middleware {
  return async (ctx, next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD') return next();
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', ALLOWED_METHODS);
      ctx.status = 204;
      return;
    }
    throw new MethodNotAllowedError(ALLOWED_METHODS);
  };
}
