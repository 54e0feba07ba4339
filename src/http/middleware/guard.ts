/**
 * The checks in front of every API route, in order (DESIGN.md §3.1): method, authentication
 * and authorisation, per-key origin, rate limit. One middleware calling the four steps in
 * turn: a request pays one Koa hop instead of four, and no promise for a step that decides
 * synchronously (method, origin, a rate decision from a leased block).
 */
import type { Middleware } from 'koa';
import type { RateLimiter } from '../../domain/ports';
import type { KeyStore } from '../../keys/ports';
import { answerMethod } from './allow-methods';
import { authenticator, type AuthFailureListener } from './authenticate';
import { originChecker } from './check-origin';
import { rateLimiter, type RateDecisionListener } from './rate-limit';

export interface GuardDeps {
  readonly keys: KeyStore;
  readonly limiter: RateLimiter;
  readonly onAuthFailure?: AuthFailureListener;
  readonly onRateDecision?: RateDecisionListener;
}

export function guard(deps: GuardDeps): Middleware {
  const authenticate = authenticator(deps.keys, deps.onAuthFailure);
  const checkOrigin = originChecker(deps.onAuthFailure);
  const limitRate = rateLimiter(deps.limiter, deps.onRateDecision);
  return async (ctx, next) => {
    if (answerMethod(ctx)) return;
    const caller = await authenticate(ctx);
    ctx.state.caller = caller;
    checkOrigin(ctx, caller);
    const limited = limitRate(ctx, caller);
    if (limited !== undefined) await limited;
    return next();
  };
}
