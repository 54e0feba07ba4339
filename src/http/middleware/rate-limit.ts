/**
 * Per-key rate limit. Every authorised request costs one point whatever its outcome, and every
 * response from here on carries the three `X-RateLimit-*` headers (429 adds `Retry-After`).
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import type { RateDecision, RateLimiter } from '../../domain/ports';
import { TooManyRequestsError } from '../../errors';
import type { Caller } from './authenticate';

const DECIDED = Symbol('radar.rateDecision');
type Decided = IncomingMessage & { [DECIDED]?: RateDecision | Promise<RateDecision> };

/**
 * Hands a decision the fast path already took (its point is spent) to the Koa pipeline, which
 * then answers the request: a 429, or a request the fast path cannot finish (an async lease
 * renewal, bytes not in memory). The point is never taken twice.
 */
export function handOverDecision(
  req: IncomingMessage,
  decision: RateDecision | Promise<RateDecision>,
): void {
  (req as Decided)[DECIDED] = decision;
}

function takeDecision(req: IncomingMessage): RateDecision | Promise<RateDecision> | undefined {
  const decided = (req as Decided)[DECIDED];
  if (decided !== undefined) (req as Decided)[DECIDED] = undefined;
  return decided;
}

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
    const decision = takeDecision(ctx.req) ?? limiter.consume(caller.keyId, caller.limit);
    if (decision instanceof Promise) return decision.then((d) => apply(ctx, d));
    apply(ctx, decision);
  };
}
