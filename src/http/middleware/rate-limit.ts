/**
 * Per-key rate limit. Every authorised request costs one point whatever its outcome, and every
 * response from here on carries the three `X-RateLimit-*` headers (429 adds `Retry-After`).
 */
import type { Middleware } from 'koa';
import type { RateLimiter } from '../../domain/ports';
import { TooManyRequestsError } from '../../errors';
import type { Caller } from './authenticate';

/** Observer of every decision (metrics): allowed or not, and the key's tier (its limit). */
export type RateDecisionListener = (allowed: boolean, limit: number) => void;

export function rateLimit(
  limiter: RateLimiter,
  onDecision: RateDecisionListener = () => {},
): Middleware {
  return async (ctx, next) => {
    const caller = ctx.state.caller as Caller;
    const decision = await limiter.consume(caller.keyId, caller.limit);
    onDecision(decision.allowed, decision.limit);
    ctx.set('X-RateLimit-Limit', String(decision.limit));
    ctx.set('X-RateLimit-Remaining', String(decision.remaining));
    ctx.set('X-RateLimit-Reset', String(decision.resetAtS));
    if (!decision.allowed) throw new TooManyRequestsError(decision.retryAfterS);
    return next();
  };
}
