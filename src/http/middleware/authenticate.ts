/**
 * Authentication (401) then authorisation (403), before any other work: a request that fails
 * here costs no rate-limit point and learns nothing about the resources.
 */
import type { Middleware } from 'koa';
import type { OriginPolicy } from '../../domain/origin-policy';
import type { KeyStore } from '../../domain/ports';
import { ForbiddenError, UnauthorizedError } from '../../errors';
import { parseBearer } from '../credentials';

/** Identity of an authorised caller, kept on `ctx.state.caller`. */
export interface Caller {
  readonly keyId: string;
  readonly appId: string;
  readonly limit: number;
  /** The key's allowed origins, checked by `checkOrigin`; absent: any origin. */
  readonly originPolicy?: OriginPolicy;
}

/**
 * Every reason a request is refused at authentication or authorisation (401/403). A closed
 * list, so the metric exports each one at 0 from the start and a new reason cannot be counted
 * without being added here.
 */
export const AUTH_FAILURE_REASONS = [
  'malformed-key',
  'malformed-app',
  'unknown-key',
  'unknown-app',
  'key-disabled',
  'app-disabled',
  'app-not-bound',
  'origin-missing',
  'origin-not-allowed',
] as const;
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

/** Observer for auth failures (metrics hook). */
export type AuthFailureListener = (reason: AuthFailureReason) => void;

export function authenticate(
  keys: KeyStore,
  onFailure: AuthFailureListener = () => {},
): Middleware {
  return async (ctx, next) => {
    // Node keeps only the first of repeated Authorization lines; two different keys are refused.
    // (Repeated X-App lines arrive joined with ", ", which is no valid token either.)
    const keyLines = new Set(ctx.req.headersDistinct.authorization ?? []);
    const apiKey = keyLines.size <= 1 ? parseBearer(ctx.req.headers.authorization) : undefined;
    const appId = parseBearer(ctx.req.headers['x-app']);
    if (apiKey === undefined || appId === undefined) {
      onFailure(apiKey === undefined ? 'malformed-key' : 'malformed-app');
      throw new UnauthorizedError();
    }
    const decision = await keys.authenticate(apiKey, appId);
    if (decision.outcome === 'unauthenticated') {
      onFailure(decision.reason);
      throw new UnauthorizedError();
    }
    if (decision.outcome === 'forbidden') {
      onFailure(decision.reason);
      throw new ForbiddenError();
    }
    const caller: Caller = {
      keyId: decision.keyId,
      appId: decision.appId,
      limit: decision.limit,
      ...(decision.originPolicy !== undefined ? { originPolicy: decision.originPolicy } : {}),
    };
    ctx.state.caller = caller;
    return next();
  };
}
