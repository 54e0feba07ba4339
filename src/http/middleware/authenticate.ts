/**
 * Authentication (401) then authorisation (403), before any other work: a request that fails
 * here costs no rate-limit point and learns nothing about the resources.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import type { OriginPolicy } from '../../domain/origin-policy';
import type { KeyStore } from '../../keys/ports';
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

/**
 * Whether a header repeated on the request carries another value than `first` (the one Node
 * keeps). A scan of the raw lines: Node's `headersDistinct` would build an object of every
 * header on every request.
 */
function repeatsDiffer(raw: readonly string[], lowerName: string, first: unknown): boolean {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (
      name.length === lowerName.length &&
      name.toLowerCase() === lowerName &&
      raw[i + 1] !== first
    )
      return true;
  }
  return false;
}

/** The two credentials as a request carries them, or why they are malformed (401). */
export type Credentials =
  | { readonly apiKey: string; readonly appId: string }
  | { readonly malformed: 'malformed-key' | 'malformed-app' };

/** Reads `Authorization` and `X-App`; shared by the Koa guard and the fast path. */
export function readCredentials(req: IncomingMessage): Credentials {
  const headers = req.headers;
  // Node keeps only the first of repeated Authorization lines; two different keys are refused.
  // (Repeated X-App lines arrive joined with ", ", which is no valid token either.)
  const apiKey = repeatsDiffer(req.rawHeaders, 'authorization', headers.authorization)
    ? undefined
    : parseBearer(headers.authorization);
  if (apiKey === undefined) return { malformed: 'malformed-key' };
  const appId = parseBearer(headers['x-app']);
  if (appId === undefined) return { malformed: 'malformed-app' };
  return { apiKey, appId };
}

/** Authenticates and authorises a request: its caller, or a 401/403 error thrown. */
export function authenticator(
  keys: KeyStore,
  onFailure: AuthFailureListener = () => {},
): (ctx: Context) => Promise<Caller> {
  return async (ctx) => {
    const credentials = readCredentials(ctx.req);
    if ('malformed' in credentials) {
      onFailure(credentials.malformed);
      throw new UnauthorizedError();
    }
    const decision = await keys.authenticate(credentials.apiKey, credentials.appId);
    if (decision.outcome === 'unauthenticated') {
      onFailure(decision.reason);
      throw new UnauthorizedError();
    }
    if (decision.outcome === 'forbidden') {
      onFailure(decision.reason);
      throw new ForbiddenError();
    }
    // An allowed decision is a Caller: the (cached) decision itself, no copy per request.
    return decision;
  };
}
