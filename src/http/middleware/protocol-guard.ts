/**
 * Requests Node's parser lets through but this HTTP/1.x server cannot honour: another major
 * version than 1, or an HTTP/1.1 request without Host (RFC 9112 §3.2). Both are the client's
 * fault, so 400 with the error record (never a 5xx; Node's own 400 for a missing Host would
 * have no body).
 */
import type { Middleware } from 'koa';
import { BadRequestError } from '../../errors';

export function protocolGuard(): Middleware {
  return (ctx, next) => {
    const req = ctx.req;
    if (req.httpVersionMajor !== 1) throw new BadRequestError();
    if (req.httpVersionMinor >= 1 && req.headers.host === undefined) throw new BadRequestError();
    return next();
  };
}
