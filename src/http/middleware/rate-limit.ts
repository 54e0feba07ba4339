/**
 * Per-key rate limit. Every authorised request costs one point whatever its outcome, and every
 * response from here on carries the three `X-RateLimit-*` headers (429 adds `Retry-After`).
 */
import type { Context } from 'koa';
import type { RateDecision, RateLimiter } from '../../domain/ports';
import { TooManyRequestsError } from '../../errors';
import type { Caller } from './authenticate';

/** Observer of every decision (metrics): allowed or not, and the key's tier (its limit). */
export type RateDecisionListener = (allowed: boolean, limit: number) => void;

/**
 * Spends one of `caller`'s points; throws 429 when none is left. Synchronous when the
 * limiter decides from memory (a leased block), so most requests await nothing here.
 */
export function rateLimiter(
  limiter: RateLimiter,
  onDecision: RateDecisionListener = () => {},
): (ctx: Context, caller: Caller) => void | Promise<void> {
  const apply = (ctx: Context, decision: RateDecision) => {
    onDecision(decision.allowed, decision.limit);
    ctx.set('X-RateLimit-Limit', String(decision.limit));
    ctx.set('X-RateLimit-Remaining', String(decision.remaining));
    ctx.set('X-RateLimit-Reset', String(decision.resetAtS));
    if (!decision.allowed) throw new TooManyRequestsError(decision.retryAfterS);
  };
  return (ctx, caller) => {
    const decision = limiter.consume(caller.keyId, caller.limit);
    if (decision instanceof Promise) return decision.then((d) => apply(ctx, d));
    apply(ctx, decision);
  };
}
