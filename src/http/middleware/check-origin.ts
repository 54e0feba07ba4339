/**
 * Per-key allowed origins (403), after authorisation and before the rate limit, so a page on
 * another site using a copied browser key learns nothing and spends none of the owner's quota.
 * The origin is `Origin`, else the origin of `Referer`; a request with neither (a server-side
 * client) passes unless the key requires an origin. Preflights never get here: the CORS
 * middleware answers them without credentials.
 */
import type { Context } from 'koa';
import { requestOrigin } from '../../domain/origin-policy';
import { ForbiddenError } from '../../errors';
import type { AuthFailureListener, Caller } from './authenticate';

/** Throws 403 when `caller`'s key allows other origins than the request's. */
export function originChecker(
  onFailure: AuthFailureListener = () => {},
): (ctx: Context, caller: Caller) => void {
  return (ctx, caller) => {
    const policy = caller.originPolicy;
    if (policy === undefined) return;
    const origin = requestOrigin(ctx.req.headers.origin, ctx.req.headers.referer);
    if (!policy.allows(origin)) {
      onFailure(origin === undefined ? 'origin-missing' : 'origin-not-allowed');
      throw new ForbiddenError();
    }
  };
}
