/** Headers every response carries: no MIME sniffing of archives or error records. */
import type { Middleware } from 'koa';

export function securityHeaders(): Middleware {
  return (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    return next();
  };
}
